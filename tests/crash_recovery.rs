//! Crash recovery with the real binary: the editor runs in a real window under Xvfb, gets a
//! chain inserted through real pointer and keyboard input (xdotool), is killed with SIGKILL,
//! and the next start offers the autosaved work, restores it and saves it to the original file.
//!
//! Needs Xvfb and xdotool. Without them the test prints a notice and passes, unless
//! `CHAINSMITH_REQUIRE_DISPLAY_TESTS=1` (CI) makes their absence a failure.
// Linux only: Xvfb, and the recovery file under $XDG_DATA_HOME.
#![cfg(target_os = "linux")]

use serde_json::{Value, json};
use std::cell::RefCell;
use std::fs::File;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Generous for a debug build on a busy 2-core machine; every wait polls and returns early.
const WAIT: Duration = Duration::from_secs(20);
/// Node ids of an expanded `support.triage` chain start with this.
const PREFIX: &str = "support_triage_";
const TITLE: &str = "Crash test — chainsmith";
const DIRTY_TITLE: &str = "• Crash test — chainsmith";

/// Stops and reaps a child when dropped, so a failed assertion leaves no Xvfb or editor behind.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        // SIGTERM first, so Xvfb removes its lock file and socket (std only sends SIGKILL);
        // only while unreaped, when the pid cannot belong to anyone else yet.
        if let Ok(None) = self.0.try_wait() {
            let _ = Command::new("sh").arg("-c").arg(format!("kill -TERM {}", self.0.id())).status();
            let deadline = Instant::now() + Duration::from_secs(5);
            while matches!(self.0.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

/// Whether Xvfb and xdotool are there; a notice when not, a failure when CI requires them.
fn display_tools() -> bool {
    let missing: Vec<&str> = ["Xvfb", "xdotool"].into_iter().filter(|t| !on_path(t)).collect();
    if missing.is_empty() {
        return true;
    }
    let missing = missing.join(" and ");
    if std::env::var("CHAINSMITH_REQUIRE_DISPLAY_TESTS").as_deref() == Ok("1") {
        panic!("display tests are required (CHAINSMITH_REQUIRE_DISPLAY_TESTS=1); missing: {missing}");
    }
    eprintln!("NOTICE: the crash-recovery test is skipped; missing: {missing} (apt-get install xvfb xdotool)");
    false
}

/// A private X display and a private home (settings, recovery file, runtime dir).
struct Desktop {
    _xvfb: Reaped,
    display: String,
    home: tempfile::TempDir,
}

impl Desktop {
    fn start() -> Self {
        let home = tempfile::tempdir().unwrap();
        let run = home.path().join("run");
        std::fs::create_dir(&run).unwrap();
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).unwrap();
        let (xvfb, display) = start_xvfb(&home.path().join("xvfb.log"));
        Desktop { _xvfb: xvfb, display, home }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.home.path().join(name)
    }

    /// Where `eframe::storage_dir("chainsmith")` puts the recovery file on Linux.
    fn recovery_file(&self) -> PathBuf {
        self.path("data/chainsmith/recovery.json")
    }

    /// The real binary on this display, with startup tracing on stderr (`log`).
    fn editor(&self, args: &[&Path], log: &str) -> Editor {
        let log = self.path(log);
        let child = Command::new(env!("CARGO_BIN_EXE_chainsmith"))
            .args(args)
            .current_dir(self.home.path())
            .env("HOME", self.home.path())
            .env("XDG_DATA_HOME", self.path("data"))
            .env("XDG_CONFIG_HOME", self.path("config"))
            .env("XDG_RUNTIME_DIR", self.path("run"))
            .env("DISPLAY", &self.display)
            // winit prefers Wayland when it can reach one; this test's window lives on Xvfb.
            .env_remove("WAYLAND_DISPLAY")
            .env("CHAINSMITH_TRACE_STARTUP", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(File::create(&log).unwrap())
            .spawn()
            .expect("the editor starts");
        let mut editor =
            Editor { child: RefCell::new(Reaped(child)), display: self.display.clone(), log, window: String::new() };
        editor.window = editor
            .wait_for("the editor window", || editor_window(&editor.display).filter(|_| editor.log_has("first frame")));
        editor.xdo(&["windowfocus", "--sync", &editor.window]);
        editor
    }
}

/// Xvfb on a free display. High numbers, away from the :0, :1 … that scripts and other
/// servers tend to use; a number whose lock or socket exists is skipped, and an Xvfb that
/// exits (the number was taken meanwhile) moves on to the next.
fn start_xvfb(log: &Path) -> (Reaped, String) {
    let first = 200 + std::process::id() % 600;
    for n in first..first + 40 {
        let taken = |p: String| Path::new(&p).exists();
        if taken(format!("/tmp/.X{n}-lock")) || taken(format!("/tmp/.X11-unix/X{n}")) {
            continue;
        }
        let display = format!(":{n}");
        // -noreset: by default the server resets when its last client leaves (the readiness
        // probe, the killed editor), and a client connecting during the reset is refused.
        let mut xvfb = Reaped(
            Command::new("Xvfb")
                .args([display.as_str(), "-screen", "0", "1440x900x24", "-nolisten", "tcp", "-noreset"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(File::create(log).unwrap())
                .spawn()
                .expect("Xvfb starts"),
        );
        let deadline = Instant::now() + WAIT;
        while xvfb.0.try_wait().unwrap().is_none() {
            // Ready once a client gets through.
            if xdotool(&display, &["getmouselocation"]).is_some() {
                return (xvfb, display);
            }
            assert!(
                Instant::now() < deadline,
                "Xvfb on {display} accepts no clients: {}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    panic!("no free X display in :{first}..:{}", first + 40);
}

/// The editor's mapped window (every title it shows ends in "chainsmith").
fn editor_window(display: &str) -> Option<String> {
    let out = xdotool(display, &["search", "--onlyvisible", "--name", "chainsmith"])?;
    out.lines().next().map(str::to_owned)
}

/// Run xdotool on `display` under a time bound; its stdout when it succeeds.
fn xdotool(display: &str, args: &[&str]) -> Option<String> {
    let mut child = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .env_remove("WAYLAND_DISPLAY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("xdotool runs");
    let deadline = Instant::now() + WAIT;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

struct Editor {
    /// Shared: `wait_for` checks it is alive while its caller's closure reads the editor.
    child: RefCell<Reaped>,
    display: String,
    log: PathBuf,
    window: String,
}

impl Editor {
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn log_has(&self, needle: &str) -> bool {
        self.log().contains(needle)
    }

    /// Poll `f` for up to `within`; `None` when time runs out. Fails with the editor's stderr
    /// if it exits meanwhile.
    fn poll<T>(&self, within: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(v) = f() {
                return Some(v);
            }
            if let Some(status) = self.child.borrow_mut().0.try_wait().unwrap() {
                panic!("the editor on {} exited ({status}); stderr:\n{}", self.display, self.log());
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn wait_for<T>(&self, what: &str, f: impl FnMut() -> Option<T>) -> T {
        let v = self.poll(WAIT, f);
        v.unwrap_or_else(|| panic!("timed out after {WAIT:?} waiting for {what}; stderr:\n{}", self.log()))
    }

    fn xdo(&self, args: &[&str]) {
        assert!(xdotool(&self.display, args).is_some(), "xdotool {args:?} failed; stderr:\n{}", self.log());
    }

    fn title(&self) -> String {
        xdotool(&self.display, &["getwindowname", &self.window]).unwrap_or_default().trim().to_owned()
    }

    fn has_title(&self, want: &str, within: Duration) -> bool {
        self.poll(within, || (self.title() == want).then_some(())).is_some()
    }

    fn wait_for_title(&self, want: &str) {
        let ok = self.has_title(want, WAIT);
        assert!(ok, "timed out waiting for the title {want:?}, it is {:?}; stderr:\n{}", self.title(), self.log());
    }

    /// Pointer position in window coordinates (the default 1440x900 layout).
    fn point(&self, (x, y): (i32, i32)) {
        self.xdo(&["mousemove", "--window", &self.window, &x.to_string(), &y.to_string()]);
    }

    /// Press, start the drag, move in steps, release. Each phase gets `pace` to land in a
    /// frame of its own: egui only sees a drag (and a drop) that spans frames.
    fn drag(&self, from: (i32, i32), to: (i32, i32), pace: Duration) {
        self.point(from);
        std::thread::sleep(pace);
        self.xdo(&["mousedown", "1"]);
        std::thread::sleep(pace);
        // Past the drag threshold while still on the tile: the drag starts here.
        self.point((from.0 + 12, from.1));
        std::thread::sleep(pace);
        for i in 1..=12 {
            self.point((from.0 + (to.0 - from.0) * i / 12, from.1 + (to.1 - from.1) * i / 12));
            std::thread::sleep(Duration::from_millis(30));
        }
        std::thread::sleep(pace);
        self.xdo(&["mouseup", "1"]);
        std::thread::sleep(pace);
    }

    fn click(&self, at: (i32, i32), pace: Duration) {
        self.point(at);
        self.xdo(&["click", "1"]);
        std::thread::sleep(pace);
    }

    fn key(&self, key: &str) {
        self.xdo(&["key", key]);
        settle();
    }

    /// SIGKILL (what `Child::kill` sends on Unix): no exit handler, no save, no cleanup.
    fn kill_hard(self) {
        let child = &mut self.child.borrow_mut().0;
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "the editor died of SIGKILL, not by exiting: {status}");
    }
}

/// Let the editor draw a frame or two after an input, so the next one lands on what it shows.
fn settle() {
    std::thread::sleep(Duration::from_millis(400));
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

fn node_ids(workflow: &Value) -> Vec<String> {
    let nodes = workflow["nodes"].as_array().map(Vec::as_slice).unwrap_or_default();
    nodes.iter().filter_map(|n| n["id"].as_str().map(str::to_owned)).collect()
}

fn inserted(workflow: &Value) -> usize {
    node_ids(workflow).iter().filter(|id| id.starts_with(PREFIX)).count()
}

#[test]
fn sigkill_mid_session_then_the_next_start_restores_the_edits() {
    if !display_tools() {
        return;
    }
    let desktop = Desktop::start();
    let file = desktop.path("wf.json");
    let original = json!({
        "id": "crash", "name": "Crash test", "version": "1.0.0",
        "nodes": [{"id": "start", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0},
                   "config": {}, "inputs": {}}],
        "edges": [], "triggers": [], "variables": [], "metadata": {}, "settings": {}
    });
    std::fs::write(&file, serde_json::to_vec_pretty(&original).unwrap()).unwrap();

    // Session 1: open the saved workflow, drop "Triage queue" on empty canvas, fill the
    // required Queue field, insert with Ctrl+Enter; nothing is saved. Coordinates are those of
    // scripts/screenshots.sh: the default layout with the bundled packs.
    let editor = desktop.editor(&[&file], "first.log");
    editor.wait_for_title(TITLE);
    // Input faster than the editor draws frames gets lost: a drag within one frame is no
    // drag, and keys typed as a text field takes focus can vanish while the X input method
    // switches over (egui enables IME for text fields). Both happen on a loaded machine; the
    // form then is not open or refuses Ctrl+Enter, so cancel it and go again, slower.
    for attempt in 1..=4 {
        let pace = Duration::from_millis(500) * attempt;
        editor.drag((74, 306), (620, 300), pace);
        editor.click((767, 529), pace);
        editor.xdo(&["type", "--delay", "30", "billing"]);
        std::thread::sleep(pace);
        editor.key("ctrl+Return");
        if editor.has_title(DIRTY_TITLE, Duration::from_secs(5)) {
            break;
        }
        assert!(attempt < 4, "the chain was not inserted after {attempt} tries; stderr:\n{}", editor.log());
        eprintln!("inserting the chain did not take (try {attempt}); again, slower");
        // The first Esc leaves a focused text field, the second cancels the form.
        editor.key("Escape");
        editor.key("Escape");
    }
    // The autosave runs at most every few seconds; wait for the write holding the chain.
    let recovery = desktop.recovery_file();
    let autosaved = editor.wait_for("the recovery file with the inserted chain", || {
        read_json(&recovery).filter(|doc| inserted(&doc["workflow"]) >= 4)
    });
    editor.kill_hard();

    let doc = read_json(&recovery).expect("the recovery file survives the kill and parses");
    assert_eq!(doc, autosaved, "the file after the kill is the autosave seen before it");
    assert_eq!(doc["path"].as_str(), Some(file.to_str().unwrap()), "the recovery knows the workflow's file");
    let recovered = doc["workflow"].clone();
    let ids = node_ids(&recovered);
    assert!(ids.contains(&"start".to_owned()), "{ids:?}");
    assert_eq!(read_json(&file), Some(original), "the workflow file itself was never saved");

    // Session 2: the prompt offers every node. Tab focuses its first button, Restore (focus
    // navigation skips everything behind a modal), Enter presses it, Ctrl+S saves to the
    // path the recovery file names, so no file dialog opens.
    let editor = desktop.editor(&[], "second.log");
    let offered = format!("recovery offered: {} nodes", ids.len());
    editor.wait_for(&format!("{offered:?} on stderr"), || editor.log_has(&offered).then_some(()));
    editor.key("Tab");
    editor.key("Return");
    editor.wait_for_title(DIRTY_TITLE);
    editor.key("ctrl+s");
    editor.wait_for_title(TITLE);
    let saved = read_json(&file).expect("the saved workflow parses");
    assert_eq!(node_ids(&saved), ids, "the saved workflow holds the recovered nodes");
    assert_eq!(saved, recovered, "what was saved is exactly what was recovered");
    assert!(!recovery.exists(), "saving retires the recovery file");
}
