//! How much memory this process may use: Linux's figures for the machine
//! (`/proc/meminfo`) within the limit of the process's memory cgroup (a
//! container's or a batch job's) and its address-space limit (`ulimit -v`,
//! `RLIMIT_AS`), so that a size check refuses what the cgroup would kill
//! the process for or the allocator would refuse. `None` where none can be
//! read (another system): the callers then check nothing.

use std::path::{Path, PathBuf};

/// The memory this process may hold at most: the machine's `MemTotal`,
/// its cgroup's limit or its address-space limit, whichever is lowest.
pub fn total_bytes() -> Option<u64> {
    let machine = read("/proc/meminfo").and_then(|t| meminfo_field(&t, "MemTotal"));
    lowest(
        lowest(machine, cgroup().map(|c| c.limit)),
        address_space_limit(),
    )
}

/// The memory this process can still be given: the machine's
/// `MemAvailable`, or what its cgroup's limit leaves above the cgroup's
/// usage, or what its address-space limit leaves above the address space
/// it has mapped, whichever is lowest.
pub fn available_bytes() -> Option<u64> {
    let machine = read("/proc/meminfo").and_then(|t| meminfo_field(&t, "MemAvailable"));
    let cgroup = cgroup().map(|c| c.limit.saturating_sub(c.usage));
    lowest(lowest(machine, cgroup), address_space_left())
}

/// The most memory this process has held resident so far (`VmHWM` of
/// `/proc/self/status`); `None` where it cannot be read.
pub fn peak_resident_bytes() -> Option<u64> {
    read("/proc/self/status").and_then(|t| meminfo_field(&t, "VmHWM"))
}

/// The memory this process holds resident now (`VmRSS`); `None` where it
/// cannot be read.
pub fn resident_bytes() -> Option<u64> {
    read("/proc/self/status").and_then(|t| meminfo_field(&t, "VmRSS"))
}

/// Whether the process's address space is limited (`ulimit -v`): then
/// every mapping counts against the limit whether its pages are touched or
/// not, and no array should take more address space than it needs.
pub fn address_space_limited() -> bool {
    address_space_limit().is_some()
}

/// What `RLIMIT_AS` leaves above the address space mapped now (`VmSize`
/// of `/proc/self/status`); `None` without a limit.
fn address_space_left() -> Option<u64> {
    let limit = address_space_limit()?;
    let mapped = meminfo_field(&read("/proc/self/status")?, "VmSize")?;
    Some(limit.saturating_sub(mapped))
}

/// The soft `RLIMIT_AS`, when there is one.
#[cfg(unix)]
fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one `rlimit` through a valid pointer.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

#[cfg(not(unix))]
fn address_space_limit() -> Option<u64> {
    None
}

fn lowest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn read(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// A field of `/proc/meminfo`'s or `/proc/self/status`'s text
/// (`Name:   123 kB`) in bytes.
fn meminfo_field(text: &str, field: &str) -> Option<u64> {
    let line = text.lines().find(|l| {
        l.strip_prefix(field)
            .is_some_and(|rest| rest.starts_with(':'))
    })?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// A memory cgroup's limit and present usage, in bytes.
#[derive(Debug, PartialEq)]
struct Cgroup {
    limit: u64,
    usage: u64,
}

/// The process's memory cgroup, when it has a limit: cgroup v2
/// (`memory.max`, `memory.current`) or v1 (`memory.limit_in_bytes`,
/// `memory.usage_in_bytes`), in the process's own directory of the
/// hierarchy or, inside a container that shows its cgroup as the root,
/// at the mount point.
fn cgroup() -> Option<Cgroup> {
    let membership = read("/proc/self/cgroup")?;
    for (dir, v2) in cgroup_dirs(&membership) {
        let (limit, usage) = if v2 {
            ("memory.max", "memory.current")
        } else {
            ("memory.limit_in_bytes", "memory.usage_in_bytes")
        };
        if let Some(limit) = read(dir.join(limit)) {
            let usage = read(dir.join(usage)).and_then(|u| u.trim().parse().ok());
            return parse_limit(&limit).map(|limit| Cgroup {
                limit,
                usage: usage.unwrap_or(0),
            });
        }
    }
    None
}

/// Where the memory controller's files may be, in the order to try, from
/// `/proc/self/cgroup`'s text: each with whether it is cgroup v2.
fn cgroup_dirs(membership: &str) -> Vec<(PathBuf, bool)> {
    let mut dirs = Vec::new();
    for line in membership.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let path = path.trim_start_matches('/');
        if id == "0" && controllers.is_empty() {
            let root = Path::new("/sys/fs/cgroup");
            dirs.push((root.join(path), true));
            dirs.push((root.to_path_buf(), true));
        } else if controllers.split(',').any(|c| c == "memory") {
            let root = Path::new("/sys/fs/cgroup/memory");
            dirs.push((root.join(path), false));
            dirs.push((root.to_path_buf(), false));
        }
    }
    dirs
}

/// A limit file's bytes; `max` (v2) is no limit, and so is v1's way of
/// saying none (the largest page-aligned `i64`, or more).
fn parse_limit(text: &str) -> Option<u64> {
    let limit: u64 = text.trim().parse().ok()?;
    (limit < 1 << 62).then_some(limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_fields_in_bytes() {
        let text = "MemTotal:       24576000 kB\nMemFree:  100 kB\nMemAvailable:   2000 kB\n";
        assert_eq!(meminfo_field(text, "MemTotal"), Some(24_576_000 * 1024));
        assert_eq!(meminfo_field(text, "MemAvailable"), Some(2_048_000));
        assert_eq!(meminfo_field(text, "Mem"), None);
        assert_eq!(meminfo_field("", "MemTotal"), None);
    }

    #[test]
    fn cgroup_limits_v1_and_v2() {
        assert_eq!(parse_limit("max\n"), None);
        assert_eq!(parse_limit("9223372036854771712\n"), None);
        assert_eq!(parse_limit("4294967296\n"), Some(4 << 30));
        let v1 = "9:systemd:/\n4:memory:/jobs/7\n1:cpu,cpuacct:/\n0::/\n";
        let dirs = cgroup_dirs(v1);
        assert_eq!(
            dirs[0],
            (PathBuf::from("/sys/fs/cgroup/memory/jobs/7"), false)
        );
        assert_eq!(dirs[1], (PathBuf::from("/sys/fs/cgroup/memory"), false));
        assert_eq!(dirs[2], (PathBuf::from("/sys/fs/cgroup/"), true));
        let v2 = "0::/user.slice/job.scope\n";
        assert_eq!(
            cgroup_dirs(v2)[0],
            (PathBuf::from("/sys/fs/cgroup/user.slice/job.scope"), true)
        );
        assert!(cgroup_dirs("garbage").is_empty());
    }

    #[test]
    fn the_lower_of_machine_and_cgroup() {
        assert_eq!(lowest(Some(8), Some(5)), Some(5));
        assert_eq!(lowest(Some(8), None), Some(8));
        assert_eq!(lowest(None, Some(5)), Some(5));
        assert_eq!(lowest(None, None), None);
        // This machine's figures, whatever they are, are consistent.
        if let (Some(total), Some(available)) = (total_bytes(), available_bytes()) {
            assert!(available <= total, "{available} > {total}");
        }
    }
}
