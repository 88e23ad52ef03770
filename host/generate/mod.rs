//! Matrix generators.
