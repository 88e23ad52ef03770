#!/usr/bin/env bash
# Keeps the records a manual: BENCHMARKS.md at most 300 lines, the tracked
# files under docs/ at most 5 MB, no tracked file named or worded after the
# work's checkpoints ("stop" and a number) or sittings, and every relative link in
# BENCHMARKS.md and docs/*.md pointing at a file that exists.
# Run from the repository root: bash scripts/check_records.sh
set -euo pipefail

fail=0
problem() { echo "check_records: $*" >&2; fail=1; }

max_lines=300
lines=$(wc -l < BENCHMARKS.md)
if (( lines > max_lines )); then
    problem "BENCHMARKS.md has $lines lines (at most $max_lines): keep the current tables only"
fi

max_docs_bytes=$((5 * 1000 * 1000))
docs_bytes=$(git ls-files -z docs | xargs -0 -r cat -- | wc -c)
if (( docs_bytes > max_docs_bytes )); then
    problem "tracked files under docs/ hold $docs_bytes bytes (at most $max_docs_bytes): keep only the logs and JSON behind BENCHMARKS.md"
fi

# The word is built from pieces so that this script does not match itself.
word="st""op"
pattern="\\b${word} ?[0-9]+\\b"
if names=$(git ls-files | grep -i -E "${word} ?[0-9]+"); then
    problem "tracked files named after a checkpoint ('${word} N'):"
    echo "$names" >&2
fi
if hits=$(git grep -I -n -i -E "$pattern"); then
    problem "tracked files mentioning a checkpoint ('${word} N'); say what the project does instead:"
    echo "$hits" >&2
fi

# Nor after the sittings of the work (the words built from pieces, as
# above): the git history keeps when things were done.
sitting="sess""ion|clos""ing note"
if hits=$(git grep -I -n -i -w -E "$sitting"); then
    problem "tracked files mentioning a sitting of the work; say what the project does instead:"
    echo "$hits" >&2
fi

# Relative links in BENCHMARKS.md and docs/*.md must resolve.
while IFS= read -r md; do
    dir=$(dirname "$md")
    while IFS= read -r target; do
        target=${target%%#*}
        [[ -z $target || $target == *://* || $target == mailto:* ]] && continue
        if [[ ! -e "$dir/$target" ]]; then
            problem "$md links to $target, which does not exist"
        fi
    done < <(grep -o -E '\]\([^)]+\)' "$md" | sed -E 's/^\]\(//; s/\)$//')
done < <(git ls-files BENCHMARKS.md 'docs/*.md'; git ls-files --others --exclude-standard 'docs/*.md')

if (( fail )); then
    exit 1
fi
echo "check_records: BENCHMARKS.md $lines lines, docs/ $docs_bytes bytes, no checkpoint names, links resolve"
