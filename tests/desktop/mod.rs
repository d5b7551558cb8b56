//! The real editor binary in a real window under Xvfb, driven with xdotool: a private display
//! and home, the editor process, pointer and keyboard input, and waiting for what it shows
//! (window title, stderr trace lines). Shared by the display tests.
//!
//! Needs Xvfb and xdotool: each display test carries
//! `#[needs(display)]` (tests/env probes for them), so without them
//! it is reported as ignored, and `CHAINSMITH_REQUIRE_DISPLAY_TESTS=1` (CI) makes their
//! absence a build failure.
#![allow(dead_code)] // each test binary uses a different subset

use serde_json::Value;
use std::cell::RefCell;
use std::fs::File;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Generous for a debug build on a busy 2-core machine; every wait polls and returns early.
pub const WAIT: Duration = Duration::from_secs(20);

/// Stops and reaps a child when dropped, so a failed assertion leaves no Xvfb or editor behind.
pub struct Reaped(pub Child);

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

/// A private X display and a private home (settings, recovery file, runtime dir).
pub struct Desktop {
    _xvfb: Reaped,
    pub display: String,
    home: tempfile::TempDir,
}

impl Desktop {
    pub fn start() -> Self {
        let home = tempfile::tempdir().unwrap();
        let run = home.path().join("run");
        std::fs::create_dir(&run).unwrap();
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).unwrap();
        let (xvfb, display) = start_xvfb(&home.path().join("xvfb.log"));
        Desktop { _xvfb: xvfb, display, home }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.home.path().join(name)
    }

    /// Where `eframe::storage_dir("chainsmith")` puts the recovery file on Linux.
    pub fn recovery_file(&self) -> PathBuf {
        self.path("data/chainsmith/recovery.json")
    }

    /// The real binary on this display, with startup tracing on stderr (`log`).
    pub fn editor(&self, args: &[&Path], log: &str) -> Editor {
        self.editor_with(args, log, &[])
    }

    /// As [`Desktop::editor`], with extra environment variables.
    pub fn editor_with(&self, args: &[&Path], log: &str, env: &[(&str, &str)]) -> Editor {
        let log = self.path(log);
        let child = Command::new(env!("CARGO_BIN_EXE_chainsmith"))
            .args(args)
            .envs(env.iter().copied())
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
pub fn start_xvfb(log: &Path) -> (Reaped, String) {
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
pub fn editor_window(display: &str) -> Option<String> {
    let out = xdotool(display, &["search", "--onlyvisible", "--name", "chainsmith"])?;
    out.lines().next().map(str::to_owned)
}

/// Run xdotool on `display` under a time bound; its stdout when it succeeds.
pub fn xdotool(display: &str, args: &[&str]) -> Option<String> {
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

pub struct Editor {
    /// Shared: `wait_for` checks it is alive while its caller's closure reads the editor.
    child: RefCell<Reaped>,
    pub display: String,
    log: PathBuf,
    pub window: String,
}

impl Editor {
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn log_has(&self, needle: &str) -> bool {
        self.log().contains(needle)
    }

    /// Poll `f` for up to `within`; `None` when time runs out. Fails with the editor's stderr
    /// if it exits meanwhile.
    pub fn poll<T>(&self, within: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
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

    pub fn wait_for<T>(&self, what: &str, f: impl FnMut() -> Option<T>) -> T {
        let v = self.poll(WAIT, f);
        v.unwrap_or_else(|| panic!("timed out after {WAIT:?} waiting for {what}; stderr:\n{}", self.log()))
    }

    pub fn xdo(&self, args: &[&str]) {
        assert!(xdotool(&self.display, args).is_some(), "xdotool {args:?} failed; stderr:\n{}", self.log());
    }

    pub fn title(&self) -> String {
        xdotool(&self.display, &["getwindowname", &self.window]).unwrap_or_default().trim().to_owned()
    }

    pub fn has_title(&self, want: &str, within: Duration) -> bool {
        self.poll(within, || (self.title() == want).then_some(())).is_some()
    }

    pub fn wait_for_title(&self, want: &str) {
        let ok = self.has_title(want, WAIT);
        assert!(ok, "timed out waiting for the title {want:?}, it is {:?}; stderr:\n{}", self.title(), self.log());
    }

    /// Pointer position in window coordinates (the default 1440x900 layout).
    pub fn point(&self, (x, y): (i32, i32)) {
        self.xdo(&["mousemove", "--window", &self.window, &x.to_string(), &y.to_string()]);
    }

    /// Press, start the drag, move in steps, release. Each phase gets `pace` to land in a
    /// frame of its own: egui only sees a drag (and a drop) that spans frames.
    pub fn drag(&self, from: (i32, i32), to: (i32, i32), pace: Duration) {
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

    pub fn click(&self, at: (i32, i32), pace: Duration) {
        self.point(at);
        self.xdo(&["click", "1"]);
        std::thread::sleep(pace);
    }

    pub fn key(&self, key: &str) {
        self.xdo(&["key", key]);
        settle();
    }

    /// SIGKILL (what `Child::kill` sends on Unix): no exit handler, no save, no cleanup.
    pub fn kill_hard(self) {
        let child = &mut self.child.borrow_mut().0;
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "the editor died of SIGKILL, not by exiting: {status}");
    }
}

/// Let the editor draw a frame or two after an input, so the next one lands on what it shows.
pub fn settle() {
    std::thread::sleep(Duration::from_millis(400));
}

pub fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}
