//! The integration tests: one binary, themed modules (as ripgrep does), so
//! the suite links once.

mod util;

mod cli;
mod man;
