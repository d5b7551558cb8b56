//! Saving without a desktop portal, with the real binary in a real window under Xvfb: the
//! system file dialog cannot be shown there, so Ctrl+S opens the editor's own dialog, and
//! typing a name and Enter writes the workflow.
//!
//! Needs Xvfb and xdotool (see tests/desktop). `CHAINSMITH_FILE_DIALOG=in-app` makes the
//! test independent of whether this machine happens to have a portal.
#![cfg(target_os = "linux")]

use chainsmith_test_env::needs;
mod desktop;

use desktop::{Desktop, read_json};
use std::time::Duration;

#[needs(display)]
#[test]
fn without_a_portal_ctrl_s_saves_through_the_in_app_dialog() {
    let desktop = Desktop::start();
    let editor = desktop.editor_with(&[], "dialog.log", &[("CHAINSMITH_FILE_DIALOG", "in-app")]);
    editor.wait_for_title("Untitled workflow — chainsmith");
    // The dialog opens in the editor's working folder, the private home.
    let target = desktop.path("fallback.json");
    // Keys typed while the name field takes focus can be lost on a loaded machine (the X input
    // method switches over); then close the dialog and go again, slower.
    for attempt in 1..=4 {
        let pace = Duration::from_millis(400) * attempt;
        editor.key("ctrl+s");
        editor.wait_for("the in-app dialog", || editor.log_has("in-app file dialog: Save workflow").then_some(()));
        std::thread::sleep(pace);
        editor.key("ctrl+a");
        editor.xdo(&["type", "--delay", "30", "fallback.json"]);
        std::thread::sleep(pace);
        editor.key("Return");
        if editor.poll(Duration::from_secs(5), || target.is_file().then_some(())).is_some() {
            break;
        }
        assert!(attempt < 4, "nothing was saved after {attempt} tries; stderr:\n{}", editor.log());
        eprintln!("saving through the in-app dialog did not take (try {attempt}); again, slower");
        editor.key("Escape");
    }
    let saved = read_json(&target).expect("the saved workflow parses");
    assert_eq!(saved["name"], "Untitled workflow");
    assert_eq!(saved["nodes"], serde_json::json!([]));
}
