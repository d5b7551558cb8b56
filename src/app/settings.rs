//! The editor's [`Settings`] kept between runs in eframe's storage. (Window size and panel
//! widths persist through eframe and egui themselves.)

use crate::editor::settings::Settings;

const KEY: &str = "chainsmith.settings";

impl Settings {
    pub fn load(storage: Option<&dyn eframe::Storage>) -> Self {
        storage.and_then(|s| eframe::get_value(s, KEY)).unwrap_or_default()
    }

    pub fn save(&self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, KEY, self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::editor::trust_settings::TrustSettings;
    use std::collections::HashMap;
    use std::path::PathBuf;

    /// eframe's storage in memory: the same RON encoding, no file.
    #[derive(Default)]
    struct Memory(HashMap<String, String>);

    impl eframe::Storage for Memory {
        fn get_string(&self, key: &str) -> Option<String> {
            self.0.get(key).cloned()
        }

        fn set_string(&mut self, key: &str, value: String) {
            self.0.insert(key.to_owned(), value);
        }

        fn remove_string(&mut self, key: &str) {
            self.0.remove(key);
        }

        fn flush(&mut self) {}
    }

    #[test]
    fn trust_settings_round_trip_through_storage() {
        let mut s = Settings::default();
        s.trust.host.compensation = false;
        s.trust.host.max_depth = 12;
        s.trust.trusted_keys = Some(PathBuf::from("/keys"));
        s.trust.require_signed = true;
        let mut storage = Memory::default();
        s.save(&mut storage);
        assert_eq!(Settings::load(Some(&storage)), s);
        assert_eq!(Settings::load(None).trust, TrustSettings::default());
    }

    #[test]
    fn settings_saved_before_trust_existed_load_with_its_defaults() {
        let mut storage = Memory::default();
        eframe::Storage::set_string(&mut storage, KEY, "(recent: [\"/a.json\"], snap: false)".to_owned());
        let s = Settings::load(Some(&storage));
        assert_eq!((s.recent, s.snap), (vec![PathBuf::from("/a.json")], false));
        assert_eq!(s.trust, TrustSettings::default());
    }
}
