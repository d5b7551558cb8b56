//! The editor's shell as a newcomer works in it (issue 37).

use chainsmith_test_env::needs;
mod common;
mod ui_common;
