//! Chains and workflows as tools: projections into the OpenWOP CompactToolDescriptor
//! (RFC 0112) and the MiRuntime tool contract, so an author can see, before publishing,
//! what a model and a governing runtime would be told and whether it is eligible.
//!
//! Every projection is validated against its bundled seed schema. Problems are reported, never
//! panicked on: [`Projection::findings`] explain what was derived, adjusted or left out (with
//! JSON pointers into the pack or workflow document), and [`Projection::violations`] list
//! where the output breaks its schema.

mod compact;
mod effects;
mod miruntime;
mod subject;
mod text;
mod walk;

pub use effects::{EffectOracle, HostTiers, SafetyTier};
pub use text::check_tool_id;
pub use walk::{COMPACT_FORBIDDEN, CompactOffence, compact_offences};

use crate::error::{Error, Finding, code};
use crate::pack::{Chain, Pack};
use crate::schemas::Violation;
use serde_json::{Value, json};
use subject::Subject;

/// The user's choices for a projection.
#[derive(Clone, Copy, Default)]
pub struct ToolOptions<'a> {
    /// Replaces the derived `toolId` (`<pack name>:<chain id>`, or `openwop:<workflow id>`).
    pub tool_id: Option<&'a str>,
    /// Replaces the derived `safetyTier`. Parse user text with [`SafetyTier::parse`], which
    /// refuses `exec`.
    pub safety_tier: Option<SafetyTier>,
    /// What node types do, from the node-pack catalog. A type no source knows, and no
    /// declaration covers, is unknown and taken as a write.
    pub effects: Option<&'a dyn EffectOracle>,
    /// The host's tier assignments per typeId (asked before the catalog) and per toolId (a
    /// tool's tier, as `safety_tier`; `safety_tier` wins).
    pub host_tiers: Option<&'a HostTiers>,
}

impl ToolOptions<'_> {
    /// The sources of node effects, the host's first.
    fn oracles(&self) -> effects::Oracles<'_> {
        let host = self.host_tiers.map(|h| h as &dyn EffectOracle);
        effects::Oracles(host.into_iter().chain(self.effects).collect())
    }
}

/// The two tool shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolFormat {
    Compact,
    MiRuntime,
}

impl ToolFormat {
    pub fn project_chain(self, pack: &Pack, chain: &Chain, opts: &ToolOptions) -> Projection {
        match self {
            ToolFormat::Compact => project_compact(pack, chain, opts),
            ToolFormat::MiRuntime => note_ignored(project_miruntime(pack, chain, opts), opts),
        }
    }

    pub fn project_workflow(self, workflow: &Value, opts: &ToolOptions) -> Projection {
        match self {
            ToolFormat::Compact => project_workflow_compact(workflow, opts),
            ToolFormat::MiRuntime => note_ignored(project_workflow_miruntime(workflow, opts), opts),
        }
    }
}

/// A projected tool document and what is known about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    pub value: Value,
    /// Eligibility and derivation findings. Errors make the document unpublishable; warnings
    /// are notes (a stripped pre-release, an omitted inputSchema, an underivable field).
    pub findings: Vec<Finding>,
    /// Where `value` breaks its bundled schema.
    pub violations: Vec<Violation>,
}

impl Projection {
    /// Publishable: schema-valid and without error findings.
    pub fn is_valid(&self) -> bool {
        self.violations.is_empty() && !self.findings.iter().any(Finding::is_error)
    }

    /// The document when publishable, otherwise a `tool_projection_invalid` refusal listing the
    /// violations and error findings.
    pub fn into_result(self) -> Result<Value, Error> {
        if self.is_valid() {
            return Ok(self.value);
        }
        let errors: Vec<&Finding> = self.findings.iter().filter(|f| f.is_error()).collect();
        let first = errors
            .first()
            .map(|f| f.to_string())
            .or_else(|| self.violations.first().map(|v| format!("{} at {}", v.message, v.pointer)))
            .unwrap_or_default();
        let message = format!(
            "the tool projection is not publishable ({}, {}): {first}",
            crate::words::count(errors.len(), "error", "errors"),
            crate::words::count(self.violations.len(), "schema violation", "schema violations")
        );
        let violations: Vec<Value> = self
            .violations
            .iter()
            .map(|v| json!({"path": v.pointer, "keyword": v.keyword, "message": v.message}))
            .collect();
        let findings: Vec<Value> = errors.iter().map(|f| f.to_json()).collect();
        Err(Error::new(code::TOOL_PROJECTION_INVALID, message)
            .with("violations", violations)
            .with("findings", findings))
    }
}

/// The MiRuntime contract has no `toolId` or `safetyTier`: say so when the user set them,
/// rather than dropping the choice silently.
fn note_ignored(mut projection: Projection, opts: &ToolOptions) -> Projection {
    let ignored = [("toolId", opts.tool_id.is_some()), ("safetyTier", opts.safety_tier.is_some())];
    for (field, _) in ignored.into_iter().filter(|(_, set)| *set) {
        projection.findings.push(
            Finding::warning(
                code::TOOL_OPTION_IGNORED,
                "",
                format!(
                    "the MiRuntime tool contract has no `{field}`, so the {field} you chose was ignored; \
                     it applies to the compact descriptor (--format compact)"
                ),
            )
            .with("field", field),
        );
    }
    projection
}

/// A chain as a CompactToolDescriptor.
pub fn project_compact(pack: &Pack, chain: &Chain, opts: &ToolOptions) -> Projection {
    compact::build(&Subject::from_chain(pack, chain, Some(&opts.oracles())), opts)
}

/// A chain as a MiRuntime tool contract.
pub fn project_miruntime(pack: &Pack, chain: &Chain, opts: &ToolOptions) -> Projection {
    miruntime::build(&Subject::from_chain(pack, chain, Some(&opts.oracles())))
}

/// A workflow definition (JSON) as a CompactToolDescriptor.
pub fn project_workflow_compact(workflow: &Value, opts: &ToolOptions) -> Projection {
    compact::build(&Subject::from_workflow(workflow, Some(&opts.oracles())), opts)
}

/// A workflow definition (JSON) as a MiRuntime tool contract.
pub fn project_workflow_miruntime(workflow: &Value, opts: &ToolOptions) -> Projection {
    miruntime::build(&Subject::from_workflow(workflow, Some(&opts.oracles())))
}

#[cfg(test)]
mod tests;
