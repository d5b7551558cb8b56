//! The file dialogs of the headless editor tests (and the frame timer): a script of answers
//! queued per dialog kind, a log of what was asked, and a switch for a desktop that has no
//! system dialog. With nothing queued, every dialog is answered with "cancelled".
// Each test binary, and examples/frame_time.rs, uses a part of it.
#![allow(dead_code)]

use chainsmith::app::FileDialogs;
use chainsmith::editor::file_dialog::{NativeRequest, Pick};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// One question the editor asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    Open,
    Folder,
    /// The save dialog, with its title.
    Save(String),
}

/// Cloned handles share one script: keep one in the test, give one to the editor.
#[derive(Clone, Default)]
pub struct Script(Rc<RefCell<State>>);

#[derive(Default)]
struct State {
    open: VecDeque<Vec<PathBuf>>,
    folder: VecDeque<PathBuf>,
    save: VecDeque<PathBuf>,
    asked: Vec<Asked>,
    /// The folder each question started in, in order.
    starts: Vec<Option<PathBuf>>,
    unavailable: bool,
}

impl Script {
    /// No system dialog on this desktop (no portal, no zenity): the editor must use its own,
    /// and any question asked all the same is still logged.
    pub fn unavailable() -> Self {
        let s = Self::default();
        s.0.borrow_mut().unavailable = true;
        s
    }

    /// The next open dialog picks `file`.
    pub fn will_open(&self, file: &Path) {
        self.0.borrow_mut().open.push_back(vec![file.to_path_buf()]);
    }

    /// The next folder dialog picks `dir`.
    pub fn will_pick_folder(&self, dir: &Path) {
        self.0.borrow_mut().folder.push_back(dir.to_path_buf());
    }

    /// The next save dialog answers `file`.
    pub fn will_save(&self, file: &Path) {
        self.0.borrow_mut().save.push_back(file.to_path_buf());
    }

    /// The folder each question asked so far started in, in order.
    pub fn starts(&self) -> Vec<Option<PathBuf>> {
        self.0.borrow().starts.clone()
    }

    /// Every question asked so far, in order.
    pub fn asked(&self) -> Vec<Asked> {
        self.0.borrow().asked.clone()
    }
}

impl FileDialogs for Script {
    fn pick(&mut self, request: &NativeRequest) -> Vec<PathBuf> {
        let mut s = self.0.borrow_mut();
        s.starts.push(request.start.clone());
        match request.pick {
            Pick::Files { .. } => {
                s.asked.push(Asked::Open);
                s.open.pop_front().unwrap_or_default()
            }
            Pick::Folder => {
                s.asked.push(Asked::Folder);
                s.folder.pop_front().into_iter().collect()
            }
            Pick::Save => {
                s.asked.push(Asked::Save(request.title.to_owned()));
                s.save.pop_front().into_iter().collect()
            }
        }
    }

    fn available(&self) -> bool {
        !self.0.borrow().unavailable
    }
}
