//! Pack editing: a chain-pack manifest changed only through [`PackEdit`]s, each of which
//! returns its inverse (what an undo stack stores). Every change re-validates the manifest
//! the way loading does (schema, semantic checks, token lints) and adds version-bump help;
//! saving is atomic, pretty-printed, members in schema order, unknown members kept.

use super::order::{in_schema_order, into_schema_order};
use crate::catalog::{Catalog, is_core};
use crate::error::{Error, Finding, Result, code};
use crate::pack::{LoadOptions, MAX_MANIFEST_BYTES, Pack, PackKind, load_file, load_value};
use semver::Version;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The `engines.openwop` range a new pack declares: v1 and v2 hosts both admit it
/// (interop §3 rule 2; `^1.0.0` or an open upper bound is refused by v2 hosts).
pub const DEFAULT_ENGINE_RANGE: &str = ">=1.0.0 <3.0.0";

/// The top-level fields of a new pack.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PackInfo {
    pub name: String,
    pub version: String,
    pub description: Option<String>,
    pub license: Option<String>,
    /// `engines`; `None` declares `openwop` [`DEFAULT_ENGINE_RANGE`].
    pub engines: Option<Map<String, Value>>,
    pub keywords: Vec<String>,
}

/// One change to a pack. Applying it returns the edit that undoes it.
#[derive(Debug, Clone, PartialEq)]
pub enum PackEdit {
    /// Set (or with `None` remove) a top-level member other than `kind` and `chains`.
    SetMember {
        key: String,
        value: Option<Value>,
    },
    InsertChain {
        index: usize,
        chain: Value,
    },
    RemoveChain {
        index: usize,
    },
    ReplaceChain {
        index: usize,
        chain: Value,
    },
    MoveChain {
        from: usize,
        to: usize,
    },
    /// Set (or remove) one member of a chain: chainId, version, label, description,
    /// parameters, capabilities, internal, outputs, …
    SetChainMember {
        index: usize,
        key: String,
        value: Option<Value>,
    },
}

/// Whether [`PackDraft::put_chain`] added a chain or replaced one with the same chainId.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    Added,
    Replaced,
}

/// A chain pack being edited.
#[derive(Debug, Clone)]
pub struct PackDraft {
    /// Always an object. Shared with `loaded` (the pack validation made of it reads this
    /// very value, no copy); an edit lets go of `loaded` first, so the edit changes it in
    /// place rather than copying it.
    manifest: Arc<Value>,
    /// The manifest as last opened or saved: what version-bump help compares against
    /// (shared with `manifest` until the first edit).
    baseline: Option<Arc<Value>>,
    /// The `pack.json` it was opened from or saved to.
    path: Option<PathBuf>,
    findings: Vec<Finding>,
    /// The manifest as loading reads it (chains, findings), from the last validation; `None`
    /// while the manifest cannot be loaded at all.
    loaded: Option<Pack>,
}

impl PackDraft {
    /// A new pack without chains (it is invalid until one is added: `chains` needs one).
    pub fn new(info: &PackInfo) -> Self {
        let mut m = Map::new();
        m.insert("name".into(), json!(info.name));
        m.insert("version".into(), json!(info.version));
        m.insert("kind".into(), json!("workflow-chain"));
        if let Some(d) = &info.description {
            m.insert("description".into(), json!(d));
        }
        if let Some(l) = &info.license {
            m.insert("license".into(), json!(l));
        }
        if !info.keywords.is_empty() {
            m.insert("keywords".into(), json!(info.keywords));
        }
        let engines = info.engines.clone().unwrap_or_else(|| {
            let mut e = Map::new();
            e.insert("openwop".into(), json!(DEFAULT_ENGINE_RANGE));
            e
        });
        m.insert("engines".into(), Value::Object(engines));
        m.insert("chains".into(), json!([]));
        let mut draft = Self {
            manifest: Arc::new(Value::Object(reordered(m))),
            baseline: None,
            path: None,
            findings: Vec::new(),
            loaded: None,
        };
        draft.revalidate();
        draft
    }

    /// Open a `pack.json` (or the folder holding it) for editing.
    pub fn open(path: &Path) -> Result<Self> {
        let file = if path.is_dir() { path.join("pack.json") } else { path.to_path_buf() };
        let pack = load_file(&file, LoadOptions { skip_schema: true })?;
        Self::from_pack(&pack, Some(file))
    }

    /// Edit a pack already loaded (the editor's palette holds them); `file` is where it
    /// saves to, `None` for a pack that has no file of its own (an embedded sample).
    pub fn from_pack(pack: &Pack, file: Option<PathBuf>) -> Result<Self> {
        if pack.kind != PackKind::WorkflowChain {
            return Err(Error::new(
                code::PACK_KIND_INVALID,
                format!(
                    "{} is a {} pack; only workflow-chain packs hold chains",
                    pack.source.display(),
                    pack.kind.as_str()
                ),
            )
            .with("path", pack.source.display().to_string())
            .with("kind", pack.kind.as_str()));
        }
        let Value::Object(manifest) = &*pack.manifest else { unreachable!("a loaded pack is an object") };
        let mut draft = Self {
            manifest: Arc::new(Value::Object(reordered(manifest.clone()))),
            baseline: Some(Arc::clone(&pack.manifest)),
            path: file,
            findings: Vec::new(),
            loaded: None,
        };
        draft.revalidate();
        Ok(draft)
    }

    /// The manifest in schema order.
    pub fn manifest(&self) -> Value {
        in_schema_order(&self.manifest)
    }

    fn members(&self) -> &Map<String, Value> {
        self.manifest.as_object().expect("a draft's manifest is an object")
    }

    /// The manifest to change: the last validation's pack goes first, so that (unless
    /// someone else holds a copy of that pack) the change is made in place.
    fn members_mut(&mut self) -> &mut Map<String, Value> {
        self.loaded = None;
        Arc::make_mut(&mut self.manifest).as_object_mut().expect("a draft's manifest is an object")
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    pub fn name(&self) -> &str {
        self.members().get("name").and_then(Value::as_str).unwrap_or_default()
    }

    pub fn version(&self) -> &str {
        self.members().get("version").and_then(Value::as_str).unwrap_or_default()
    }

    /// Findings of the last validation (errors and warnings, pointers into the manifest).
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    pub fn errors(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.is_error())
    }

    /// The manifest as a loaded pack (what the palette shows), as of the last change.
    pub fn pack(&self) -> Option<&Pack> {
        self.loaded.as_ref()
    }

    pub fn chains(&self) -> &[Value] {
        self.members().get("chains").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
    }

    pub fn chain_index(&self, chain_id: &str) -> Option<usize> {
        self.chains().iter().position(|c| chain_id_of(c) == Some(chain_id))
    }

    /// Apply one edit and re-validate; returns the edit that undoes it. A refused edit
    /// changes nothing.
    pub fn apply(&mut self, edit: PackEdit) -> Result<PackEdit> {
        let inverse = self.apply_unchecked(edit)?;
        // Kept in schema order at all times, so an undone edit restores the same order.
        let members = std::mem::take(self.members_mut());
        *self.members_mut() = reordered(members);
        self.revalidate();
        Ok(inverse)
    }

    fn apply_unchecked(&mut self, edit: PackEdit) -> Result<PackEdit> {
        match edit {
            PackEdit::SetMember { key, value } => {
                if key == "kind" || key == "chains" {
                    return Err(Error::new(
                        code::INVALID_REQUEST,
                        format!("`{key}` is not edited as a member: a chain pack's kind is fixed and chains have their own edits"),
                    )
                    .with("path", format!("/{key}")));
                }
                let old = match value {
                    Some(v) => self.members_mut().insert(key.clone(), v),
                    None => self.members_mut().shift_remove(&key),
                };
                Ok(PackEdit::SetMember { key, value: old })
            }
            PackEdit::InsertChain { index, chain } => {
                let len = self.chains().len();
                check_index(index, len + 1)?;
                self.check_chain(&chain, None)?;
                self.chains_mut().insert(index, chain);
                Ok(PackEdit::RemoveChain { index })
            }
            PackEdit::RemoveChain { index } => {
                check_index(index, self.chains().len())?;
                let chain = self.chains_mut().remove(index);
                Ok(PackEdit::InsertChain { index, chain })
            }
            PackEdit::ReplaceChain { index, chain } => {
                check_index(index, self.chains().len())?;
                self.check_chain(&chain, Some(index))?;
                let old = std::mem::replace(&mut self.chains_mut()[index], chain);
                Ok(PackEdit::ReplaceChain { index, chain: old })
            }
            PackEdit::MoveChain { from, to } => {
                let len = self.chains().len();
                check_index(from, len)?;
                check_index(to, len)?;
                let chain = self.chains_mut().remove(from);
                self.chains_mut().insert(to, chain);
                Ok(PackEdit::MoveChain { from: to, to: from })
            }
            PackEdit::SetChainMember { index, key, value } => {
                check_index(index, self.chains().len())?;
                let mut chain = self.chains()[index].clone();
                let Some(obj) = chain.as_object_mut() else {
                    return Err(Error::new(code::INVALID_REQUEST, format!("chains[{index}] is not an object"))
                        .with("path", format!("/chains/{index}")));
                };
                let old = match value {
                    Some(v) => obj.insert(key.clone(), v),
                    None => obj.shift_remove(&key),
                };
                self.check_chain(&chain, Some(index))?;
                self.chains_mut()[index] = chain;
                Ok(PackEdit::SetChainMember { index, key, value: old })
            }
        }
    }

    /// Add `chain`, or replace the chain with the same chainId in its place.
    pub fn put_chain(&mut self, chain: Value) -> Result<(usize, Placement, PackEdit)> {
        let id = chain_id_of(&chain).unwrap_or_default().to_owned();
        let places: Vec<usize> =
            self.chains().iter().enumerate().filter(|(_, c)| chain_id_of(c) == Some(&id)).map(|(i, _)| i).collect();
        match places.as_slice() {
            [] => {
                let index = self.chains().len();
                let undo = self.apply(PackEdit::InsertChain { index, chain })?;
                Ok((index, Placement::Added, undo))
            }
            [index] => {
                let undo = self.apply(PackEdit::ReplaceChain { index: *index, chain })?;
                Ok((*index, Placement::Replaced, undo))
            }
            _ => Err(Error::new(
                code::DUPLICATE_CHAIN_ID,
                format!(
                    "the pack already holds chainId \"{id}\" {} times; fix the pack before replacing it",
                    places.len()
                ),
            )
            .with("chainId", id.as_str())
            .with("indexes", places)),
        }
    }

    /// A chain must be an object whose chainId no other chain uses.
    fn check_chain(&self, chain: &Value, replacing: Option<usize>) -> Result<()> {
        if !chain.is_object() {
            return Err(Error::new(code::INVALID_REQUEST, "a chain is a JSON object"));
        }
        let id = chain_id_of(chain).unwrap_or_default();
        if let Some(other) =
            self.chains().iter().enumerate().position(|(i, c)| Some(i) != replacing && chain_id_of(c) == Some(id))
        {
            return Err(Error::new(
                code::DUPLICATE_CHAIN_ID,
                format!("chainId \"{id}\" is already used by /chains/{other}; chainIds must be unique within a pack"),
            )
            .with("chainId", id)
            .with("path", format!("/chains/{other}/chainId")));
        }
        Ok(())
    }

    fn chains_mut(&mut self) -> &mut Vec<Value> {
        let chains = self.members_mut().entry("chains").or_insert_with(|| json!([]));
        if !chains.is_array() {
            *chains = json!([]);
        }
        chains.as_array_mut().expect("array")
    }

    /// `dependencies` from the node packs that provide the chains' typeIds: each provider's
    /// name with the caret range of its loaded version. Reserved `core.*` typeIds need no
    /// pack; a typeId no catalogued pack provides is reported. Returns the edit (undo) and
    /// those findings.
    pub fn set_dependencies(&mut self, catalog: &Catalog) -> Result<(PackEdit, Vec<Finding>)> {
        let mut deps: BTreeMap<String, String> = BTreeMap::new();
        let mut findings = Vec::new();
        for (i, chain) in self.chains().iter().enumerate() {
            let pack = crate::pack::Chain::new(i, chain.clone());
            for type_id in pack.type_ids() {
                if is_core(type_id) {
                    continue;
                }
                let bare = type_id.rsplit_once('@').map_or(type_id, |(t, _)| t);
                match catalog.node_type(type_id).or_else(|| catalog.node_type(bare)) {
                    Some(node) => {
                        deps.insert(node.pack_name().to_owned(), format!("^{}", node.pack_version()));
                    }
                    None => findings.push(
                        Finding::warning(
                            code::CHAIN_UNRESOLVABLE_TYPEID,
                            format!("/chains/{i}"),
                            format!(
                                "no loaded node pack provides typeId \"{type_id}\", so no dependency is declared for \
                                 it: open the node pack that does and compute the dependencies again"
                            ),
                        )
                        .in_chain(pack.chain_id())
                        .with("typeId", type_id),
                    ),
                }
            }
        }
        let value = (!deps.is_empty()).then(|| json!(deps));
        let undo = self.apply(PackEdit::SetMember { key: "dependencies".into(), value })?;
        Ok((undo, findings))
    }

    /// The bytes `save` writes: pretty JSON, members in schema order, final newline. The
    /// manifest is kept in schema order, so it is written as it stands, not copied first.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        crate::fsio::write_pretty_json(&mut out, self.members()).expect("a JSON map always serialises");
        out
    }

    /// [`Self::to_bytes`], refused with `pack_manifest_invalid` (the code loading gives a
    /// manifest over the limit) when they exceed [`MAX_MANIFEST_BYTES`]: no command could
    /// read such a file back. `file` names it in the refusal.
    pub fn checked_bytes(&self, file: &Path) -> Result<Vec<u8>> {
        self.checked_size(file)?;
        Ok(self.to_bytes())
    }

    /// How many bytes [`Self::to_bytes`] gives, counted as they are produced (nothing is
    /// held), refused as [`Self::checked_bytes`] refuses.
    pub fn checked_size(&self, file: &Path) -> Result<u64> {
        struct Count(u64);
        impl std::io::Write for Count {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0 += buf.len() as u64;
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut count = Count(0);
        crate::fsio::write_pretty_json(&mut count, self.members()).expect("a JSON map always serialises");
        let size = count.0;
        if size > MAX_MANIFEST_BYTES {
            return Err(Error::new(
                code::PACK_MANIFEST_INVALID,
                format!(
                    "{}: the pack would be {} bytes; the limit is {MAX_MANIFEST_BYTES} bytes, so nothing was written",
                    file.display(),
                    size
                ),
            )
            .with("path", file.display().to_string())
            .with("size", size)
            .with("limit", MAX_MANIFEST_BYTES));
        }
        Ok(size)
    }

    /// Write [`Self::to_bytes`] atomically to `file` as they are produced, without holding
    /// them whole; the size is not checked here ([`Self::checked_size`] checks it first).
    pub fn write_unchecked(&self, file: &Path) -> Result<()> {
        crate::fsio::write_atomic_with(file, &mut |w| crate::fsio::write_pretty_json(w, self.members()))
    }

    /// Write the manifest atomically to `path` (a `pack.json`, or a folder to hold one);
    /// it becomes the baseline for version-bump help. Returns the file written. A manifest
    /// over [`MAX_MANIFEST_BYTES`] is refused before anything is written.
    pub fn save(&mut self, path: &Path) -> Result<PathBuf> {
        let file = if path.is_dir() { path.join("pack.json") } else { path.to_path_buf() };
        self.checked_size(&file)?;
        self.write_unchecked(&file)?;
        self.baseline = Some(Arc::clone(&self.manifest));
        self.path = Some(file.clone());
        self.revalidate();
        Ok(file)
    }

    /// Validate as loading does, then add version-bump help.
    fn revalidate(&mut self) {
        let label = self.path.clone().unwrap_or_else(|| PathBuf::from("pack.json"));
        // The last validation's pack goes first: two of them at once were two more copies
        // of the manifest at the peak.
        self.loaded = None;
        let loaded = load_value(&label, Arc::clone(&self.manifest), LoadOptions::default());
        (self.findings, self.loaded) = match loaded {
            // Loading's checks include defaults that fail their own parameter schema.
            Ok(pack) => (pack.findings.clone(), Some(pack)),
            Err(e) => (vec![Finding::error(e.code, "", e.message)], None),
        };
        // Unchanged since opened or saved (the very same value): nothing to compare.
        let baseline = self.baseline.as_ref().filter(|b| !Arc::ptr_eq(b, &self.manifest));
        if let Some(base) = baseline.and_then(|b| b.as_object()) {
            let now = self.manifest.as_object().expect("a draft's manifest is an object");
            self.findings.extend(version_help(base, now));
            if now.contains_key("signing") && base != now {
                self.findings.push(Finding::warning(
                    code::SIGNATURE_STALE,
                    "/signing",
                    "the pack changed since it was signed; its signature no longer matches the saved bytes: sign it again",
                ));
            }
        }
    }
}

fn chain_id_of(chain: &Value) -> Option<&str> {
    chain.get("chainId").and_then(Value::as_str)
}

fn check_index(index: usize, len: usize) -> Result<()> {
    if index < len {
        Ok(())
    } else {
        Err(Error::new(code::INVALID_REQUEST, format!("there is no chain position {index} (the pack has {len})"))
            .with("index", index))
    }
}

fn reordered(m: Map<String, Value>) -> Map<String, Value> {
    match into_schema_order(Value::Object(m)) {
        Value::Object(o) => o,
        _ => unreachable!("an object stays an object"),
    }
}

/// How far a change reaches, for the suggested version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Bump {
    Patch,
    Minor,
    Major,
}

impl Bump {
    fn name(self) -> &'static str {
        match self {
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        }
    }

    fn apply(self, version: &str) -> Option<String> {
        let v = Version::parse(version).ok()?;
        let next = match self {
            Bump::Major => Version::new(v.major + 1, 0, 0),
            Bump::Minor => Version::new(v.major, v.minor + 1, 0),
            Bump::Patch => Version::new(v.major, v.minor, v.patch + 1),
        };
        Some(next.to_string())
    }
}

/// A chain that changed since the baseline while its `version` did not, and a pack that
/// changed while its `version` did not, get a warning with the suggested next version.
fn version_help(base: &Map<String, Value>, now: &Map<String, Value>) -> Vec<Finding> {
    fn chains(m: &Map<String, Value>) -> &[Value] {
        m.get("chains").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
    }
    let (old_chains, new_chains) = (chains(base), chains(now));
    let mut out = Vec::new();
    let mut pack_bump: Option<Bump> = None;
    let mut raise = |b: Bump| pack_bump = Some(pack_bump.map_or(b, |p| p.max(b)));
    let old_by_id: std::collections::HashMap<&str, &Value> =
        old_chains.iter().filter_map(|c| Some((chain_id_of(c)?, c))).collect();
    let new_ids: std::collections::HashSet<&str> = new_chains.iter().filter_map(chain_id_of).collect();
    for (i, chain) in new_chains.iter().enumerate() {
        let id = chain_id_of(chain).unwrap_or_default();
        let Some(old) = old_by_id.get(id).copied() else {
            raise(Bump::Minor);
            continue;
        };
        if old == chain {
            continue;
        }
        let bump = chain_bump(old, chain);
        raise(bump);
        let version = chain.get("version").and_then(Value::as_str).unwrap_or_default();
        if old.get("version") == chain.get("version")
            && let Some(next) = bump.apply(version)
        {
            out.push(
                Finding::warning(
                    code::VERSION_BUMP_SUGGESTED,
                    format!("/chains/{i}/version"),
                    format!(
                        "chain {id} changed but its version is still {version}: set it to {next} ({} change) before publishing",
                        bump.name()
                    ),
                )
                .in_chain(id)
                .with("suggested", next)
                .with("bump", bump.name()),
            );
        }
    }
    if old_by_id.keys().any(|id| !new_ids.contains(id)) {
        raise(Bump::Major);
    }
    let others_changed =
        base.iter().any(|(k, v)| k != "chains" && now.get(k) != Some(v)) || now.keys().any(|k| !base.contains_key(k));
    if others_changed {
        raise(Bump::Patch);
    }
    let version = now.get("version").and_then(Value::as_str).unwrap_or_default();
    if let Some(bump) = pack_bump
        && base.get("version") == now.get("version")
        && let Some(next) = bump.apply(version)
    {
        out.push(
            Finding::warning(
                code::VERSION_BUMP_SUGGESTED,
                "/version",
                format!(
                    "the pack changed but its version is still {version}: set it to {next} ({} change) before publishing",
                    bump.name()
                ),
            )
            .with("suggested", next)
            .with("bump", bump.name()),
        );
    }
    out
}

/// What a chain's users notice: its parameters are its interface. Removing or retyping a
/// parameter, or newly requiring one, breaks drops that worked (major); a new parameter or
/// declaration is an addition (minor); anything else (fragment, texts) is a patch.
fn chain_bump(old: &Value, new: &Value) -> Bump {
    let props = |c: &Value| c.pointer("/parameters/properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let required = |c: &Value| -> Vec<String> {
        c.pointer("/parameters/required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let (op, np) = (props(old), props(new));
    let removed_or_retyped = op.iter().any(|(k, s)| np.get(k).is_none_or(|n| n.get("type") != s.get("type")));
    let (or, nr) = (required(old), required(new));
    let or: std::collections::HashSet<&String> = or.iter().collect();
    let newly_required = nr.iter().any(|r| !or.contains(r));
    let gone = |key: &str| {
        let names = |c: &Value| -> Vec<String> {
            match c.get(key) {
                Some(Value::Array(a)) => a.iter().map(|x| x.get("name").unwrap_or(x).to_string()).collect(),
                Some(Value::Object(m)) => m.keys().cloned().collect(),
                _ => Vec::new(),
            }
        };
        let now: std::collections::HashSet<String> = names(new).into_iter().collect();
        names(old).iter().any(|n| !now.contains(n))
    };
    if removed_or_retyped || newly_required || gone("outputs") || gone("producedVariables") {
        return Bump::Major;
    }
    let added = np.keys().any(|k| !op.contains_key(k));
    let declarations = ["outputs", "producedVariables", "capabilities", "subChains"];
    if added || declarations.iter().any(|k| old.get(*k) != new.get(*k)) {
        return Bump::Minor;
    }
    Bump::Patch
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> PackInfo {
        PackInfo {
            name: "vendor.acme.tiles".into(),
            version: "1.0.0".into(),
            description: Some("Tiles".into()),
            license: Some("MIT".into()),
            keywords: vec!["ops".into()],
            ..Default::default()
        }
    }

    fn chain(id: &str) -> Value {
        json!({"chainId": id, "version": "1.0.0", "label": "L", "description": "d",
               "parameters": {"type": "object", "properties": {"q": {"type": "string", "default": "x"}}},
               "dag": {"nodes": [{"id": "a", "typeId": "core.identity", "config": {"q": "{{params.q}}"}}], "edges": []}})
    }

    fn codes(d: &PackDraft) -> Vec<(&'static str, &str)> {
        d.findings().iter().map(|f| (f.code, f.pointer.as_str())).collect()
    }

    #[test]
    fn a_new_pack_is_valid_once_it_has_a_chain() {
        let mut d = PackDraft::new(&info());
        assert!(codes(&d).contains(&(code::INVALID_MANIFEST, "/chains")), "{:?}", codes(&d));
        d.apply(PackEdit::InsertChain { index: 0, chain: chain("acme.one") }).unwrap();
        assert!(d.errors().next().is_none(), "{:?}", d.findings());
        let m = d.manifest();
        assert_eq!(m["engines"], json!({"openwop": DEFAULT_ENGINE_RANGE}));
        assert_eq!(m["keywords"], json!(["ops"]));
        assert_eq!(m["license"], "MIT");
    }

    #[test]
    fn every_edit_revalidates_and_undoes_exactly() {
        let mut d = PackDraft::new(&info());
        d.apply(PackEdit::InsertChain { index: 0, chain: chain("acme.one") }).unwrap();
        d.apply(PackEdit::InsertChain { index: 1, chain: chain("acme.two") }).unwrap();
        let start = d.manifest();
        let edits = [
            PackEdit::SetMember { key: "name".into(), value: Some(json!("Not A Name")) },
            PackEdit::SetMember { key: "description".into(), value: None },
            PackEdit::SetMember { key: "x-vendor".into(), value: Some(json!({"k": 1})) },
            PackEdit::MoveChain { from: 1, to: 0 },
            PackEdit::SetChainMember { index: 0, key: "label".into(), value: Some(json!("")) },
            PackEdit::SetChainMember { index: 1, key: "internal".into(), value: Some(json!(true)) },
            PackEdit::ReplaceChain { index: 1, chain: chain("acme.three") },
            PackEdit::RemoveChain { index: 0 },
        ];
        let mut undo = Vec::new();
        for e in edits {
            undo.push(d.apply(e).unwrap());
        }
        let found = codes(&d);
        assert!(found.contains(&(code::INVALID_MANIFEST, "/name")), "{found:?}");
        assert_eq!(d.chains().len(), 1);
        assert_eq!(d.manifest()["x-vendor"], json!({"k": 1}));
        while let Some(e) = undo.pop() {
            d.apply(e).unwrap();
        }
        assert_eq!(d.manifest(), start);
        assert_eq!(
            d.manifest().as_object().unwrap().keys().collect::<Vec<_>>(),
            start.as_object().unwrap().keys().collect::<Vec<_>>()
        );
        assert!(d.errors().next().is_none());
    }

    #[test]
    fn duplicate_chain_ids_and_bad_positions_are_refused() {
        let mut d = PackDraft::new(&info());
        d.apply(PackEdit::InsertChain { index: 0, chain: chain("acme.one") }).unwrap();
        d.apply(PackEdit::InsertChain { index: 1, chain: chain("acme.two") }).unwrap();
        let before = d.manifest();
        let err = d.apply(PackEdit::ReplaceChain { index: 1, chain: chain("acme.one") }).unwrap_err();
        assert_eq!((err.code, err.details["path"].as_str()), (code::DUPLICATE_CHAIN_ID, Some("/chains/0/chainId")));
        let err = d
            .apply(PackEdit::SetChainMember { index: 0, key: "chainId".into(), value: Some(json!("acme.two")) })
            .unwrap_err();
        assert_eq!(err.code, code::DUPLICATE_CHAIN_ID);
        assert_eq!(
            d.apply(PackEdit::InsertChain { index: 0, chain: chain("acme.two") }).unwrap_err().code,
            code::DUPLICATE_CHAIN_ID
        );
        assert_eq!(d.apply(PackEdit::RemoveChain { index: 2 }).unwrap_err().code, code::INVALID_REQUEST);
        assert_eq!(
            d.apply(PackEdit::InsertChain { index: 3, chain: chain("x.y") }).unwrap_err().code,
            code::INVALID_REQUEST
        );
        assert_eq!(
            d.apply(PackEdit::SetMember { key: "kind".into(), value: None }).unwrap_err().code,
            code::INVALID_REQUEST
        );
        assert_eq!(d.manifest(), before, "refused edits change nothing");
        // Replacing in place keeps the position.
        let mut changed = chain("acme.one");
        changed["label"] = json!("New");
        assert_eq!(d.put_chain(changed).unwrap().0, 0);
        assert_eq!(d.chains()[0]["label"], "New");
        assert_eq!(d.put_chain(chain("acme.three")).unwrap().1, Placement::Added);
    }

    #[test]
    fn put_chain_refuses_when_the_pack_already_repeats_the_id() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pack.json");
        let m = json!({"name": "vendor.acme.tiles", "version": "1.0.0", "kind": "workflow-chain",
            "engines": {"openwop": "*"}, "chains": [chain("acme.one"), chain("acme.one")]});
        std::fs::write(&file, m.to_string()).unwrap();
        let mut d = PackDraft::open(dir.path()).unwrap();
        let err = d.put_chain(chain("acme.one")).unwrap_err();
        assert_eq!(err.code, code::DUPLICATE_CHAIN_ID);
        assert_eq!(err.details["indexes"], json!([0, 1]));
    }

    #[test]
    fn changed_chains_without_a_new_version_get_a_suggested_bump() {
        let dir = tempfile::tempdir().unwrap();
        let mut d = PackDraft::new(&info());
        d.apply(PackEdit::InsertChain { index: 0, chain: chain("acme.one") }).unwrap();
        d.apply(PackEdit::InsertChain { index: 1, chain: chain("acme.two") }).unwrap();
        d.save(dir.path()).unwrap();
        assert!(d.findings().iter().all(|f| f.code != code::VERSION_BUMP_SUGGESTED));

        let suggestion = |d: &PackDraft, ptr: &str| {
            d.findings().iter().find(|f| f.code == code::VERSION_BUMP_SUGGESTED && f.pointer == ptr).map(|f| {
                (f.details["suggested"].as_str().unwrap().to_owned(), f.details["bump"].as_str().unwrap().to_owned())
            })
        };
        // A texts-only change is a patch.
        let undo =
            d.apply(PackEdit::SetChainMember { index: 0, key: "label".into(), value: Some(json!("X")) }).unwrap();
        assert_eq!(suggestion(&d, "/chains/0/version"), Some(("1.0.1".into(), "patch".into())));
        assert_eq!(suggestion(&d, "/version"), Some(("1.0.1".into(), "patch".into())));
        // Bumping the chain's own version silences its warning, not the pack's.
        d.apply(PackEdit::SetChainMember { index: 0, key: "version".into(), value: Some(json!("1.0.1")) }).unwrap();
        assert_eq!(suggestion(&d, "/chains/0/version"), None);
        assert!(suggestion(&d, "/version").is_some());
        d.apply(undo).unwrap();
        // A new parameter is minor; a removed or retyped one, or a newly required one, major.
        let mut p = d.chains()[1]["parameters"].clone();
        p["properties"]["extra"] = json!({"type": "number"});
        d.apply(PackEdit::SetChainMember { index: 1, key: "parameters".into(), value: Some(p.clone()) }).unwrap();
        assert_eq!(suggestion(&d, "/chains/1/version"), Some(("1.1.0".into(), "minor".into())));
        p["required"] = json!(["q"]);
        d.apply(PackEdit::SetChainMember { index: 1, key: "parameters".into(), value: Some(p.clone()) }).unwrap();
        assert_eq!(suggestion(&d, "/chains/1/version"), Some(("2.0.0".into(), "major".into())));
        assert_eq!(suggestion(&d, "/version"), Some(("2.0.0".into(), "major".into())));
        p = json!({"type": "object", "properties": {"q": {"type": "integer"}}});
        d.apply(PackEdit::SetChainMember { index: 1, key: "parameters".into(), value: Some(p) }).unwrap();
        assert_eq!(suggestion(&d, "/chains/1/version"), Some(("2.0.0".into(), "major".into())));
        // Removing a chain is a major change of the pack.
        let mut d = PackDraft::open(dir.path()).unwrap();
        d.apply(PackEdit::RemoveChain { index: 1 }).unwrap();
        assert_eq!(suggestion(&d, "/version"), Some(("2.0.0".into(), "major".into())));
    }

    #[test]
    fn saves_are_pretty_ordered_and_keep_unknown_members() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pack.json");
        let text = r#"{"x-custom": {"b": 1, "a": 2}, "chains": [{"dag": {"nodes": [{"typeId": "core.identity", "id": "a"}], "edges": []},
            "parameters": {"type": "object"}, "description": "d", "label": "L", "version": "1.0.0", "chainId": "acme.one"}],
            "engines": {"openwop": "*"}, "kind": "workflow-chain", "version": "1.0.0", "name": "vendor.acme.tiles"}"#;
        std::fs::write(&file, text).unwrap();
        let mut d = PackDraft::open(&file).unwrap();
        d.apply(PackEdit::SetMember { key: "license".into(), value: Some(json!("MIT")) }).unwrap();
        assert_eq!(d.save(&file).unwrap(), file);
        let saved = std::fs::read_to_string(&file).unwrap();
        assert!(
            saved.starts_with("{\n  \"name\": \"vendor.acme.tiles\",\n  \"version\": \"1.0.0\",\n  \"kind\""),
            "{saved}"
        );
        assert!(saved.ends_with("}\n"));
        let v: Value = serde_json::from_str(&saved).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["name", "version", "kind", "license", "engines", "chains", "x-custom"]);
        assert_eq!(serde_json::to_string(&v["x-custom"]).unwrap(), r#"{"b":1,"a":2}"#);
        let chain_keys: Vec<&str> = v["chains"][0].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(chain_keys, ["chainId", "version", "label", "description", "parameters", "dag"]);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
    }

    #[test]
    fn invalid_defaults_and_stale_signatures_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let mut d = PackDraft::new(&info());
        let mut c = chain("acme.one");
        c["parameters"]["properties"]["q"]["maxLength"] = json!(0);
        d.apply(PackEdit::InsertChain { index: 0, chain: c }).unwrap();
        let found = codes(&d);
        assert!(
            found.contains(&(code::CHAIN_PARAMETER_INVALID, "/chains/0/parameters/properties/q/default")),
            "{found:?}"
        );
        d.apply(PackEdit::SetMember { key: "signing".into(), value: Some(json!({"method": "manual"})) }).unwrap();
        d.save(dir.path()).unwrap();
        assert!(!codes(&d).iter().any(|(c, _)| *c == code::SIGNATURE_STALE), "nothing changed since it was opened");
        d.apply(PackEdit::SetMember { key: "license".into(), value: Some(json!("Apache-2.0")) }).unwrap();
        assert!(codes(&d).contains(&(code::SIGNATURE_STALE, "/signing")), "{:?}", d.findings());
    }

    #[test]
    fn node_packs_are_not_opened_as_chain_packs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pack.json"), r#"{"name": "vendor.a.b", "version": "1.0.0", "nodes": []}"#)
            .unwrap();
        assert_eq!(PackDraft::open(dir.path()).unwrap_err().code, code::PACK_KIND_INVALID);
    }

    #[test]
    fn dependencies_come_from_the_packs_providing_the_type_ids() {
        let dir = tempfile::tempdir().unwrap();
        let node_pack = json!({"name": "vendor.acme.nodes", "version": "1.4.2", "engines": {"openwop": ">=1.0.0"},
            "runtime": {"language": "javascript", "entry": "x.js"},
            "nodes": [{"typeId": "vendor.acme.fetch", "version": "1.0.0", "category": "data", "role": "pure"}]});
        std::fs::write(dir.path().join("pack.json"), node_pack.to_string()).unwrap();
        let catalog = Catalog::load(&[dir.path()]);
        let mut c = chain("acme.one");
        c["dag"]["nodes"] = json!([{"id": "a", "typeId": "core.identity"}, {"id": "b", "typeId": "vendor.acme.fetch"},
            {"id": "c", "typeId": "vendor.other.thing", "compensation": {"nodeTypeId": "vendor.acme.fetch"}}]);
        let mut d = PackDraft::new(&info());
        d.apply(PackEdit::InsertChain { index: 0, chain: c }).unwrap();
        let (undo, findings) = d.set_dependencies(&catalog).unwrap();
        assert_eq!(d.manifest()["dependencies"], json!({"vendor.acme.nodes": "^1.4.2"}));
        let unresolved: Vec<&str> = findings.iter().map(|f| f.details["typeId"].as_str().unwrap()).collect();
        assert_eq!(unresolved, ["vendor.other.thing"]);
        d.apply(undo).unwrap();
        assert!(d.manifest().get("dependencies").is_none());
    }
}
