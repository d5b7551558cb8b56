//! Members in schema order: a saved manifest lists each object's members in the order the
//! embedded chain-pack schema declares them, followed by unknown members in their own order.
//! The order is read from the schema itself, so it follows the schema when it changes.

use crate::schemas::Schema;
use serde_json::{Map, Value};

/// `manifest` with every object the schema describes put in schema order.
pub fn in_schema_order(manifest: &Value) -> Value {
    into_schema_order(manifest.clone())
}

/// [`in_schema_order`], reusing `manifest`'s members instead of copying them (a manifest
/// with a 100,000-node chain was held twice over while it was copied).
pub fn into_schema_order(manifest: Value) -> Value {
    let root = Schema::ChainManifest.document();
    reorder(manifest, root, root)
}

fn reorder(v: Value, schema: &Value, root: &Value) -> Value {
    let schema = resolve(schema, root);
    match v {
        Value::Object(mut m) => {
            let props = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            let mut out = Map::with_capacity(m.len());
            for (k, sub) in props.into_iter().flatten() {
                if let Some(x) = m.shift_remove(k) {
                    out.insert(k.clone(), reorder(x, sub, root));
                }
            }
            for (k, x) in m {
                let x = match additional {
                    Some(sub) => reorder(x, sub, root),
                    None => x,
                };
                out.insert(k, x);
            }
            Value::Object(out)
        }
        Value::Array(items) => match schema.get("items").filter(|s| s.is_object()) {
            Some(sub) => Value::Array(items.into_iter().map(|x| reorder(x, sub, root)).collect()),
            None => Value::Array(items),
        },
        other => other,
    }
}

/// Follow local `$ref`s (`#/$defs/…`); the embedded schema's chains are short.
fn resolve<'a>(mut schema: &'a Value, root: &'a Value) -> &'a Value {
    for _ in 0..8 {
        match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')).and_then(|p| root.pointer(p))
        {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(v: &Value) -> Vec<&str> {
        v.as_object().unwrap().keys().map(String::as_str).collect()
    }

    #[test]
    fn members_follow_the_schema_and_unknown_ones_follow_in_their_order() {
        let m = json!({
            "x-zeta": 1, "chains": [{"dag": {"edges": [{"triggerRule": "all_success", "to": "b", "from": "a",
                "condition": {"left": "x", "type": "truthy"}}],
                "nodes": [{"inputs": {"z": 1, "a": 2}, "typeId": "core.x", "id": "a",
                           "compensation": {"inputMapping": {}, "nodeTypeId": "core.undo"}}]},
              "x-mine": true, "label": "L", "chainId": "c", "outputs": {"o": {"description": "d", "type": "string"}},
              "parameters": {"properties": {"b": {}, "a": {}}, "type": "object"}}],
            "kind": "workflow-chain", "x-alpha": 2, "version": "1.0.0", "name": "vendor.a.b",
            "signing": {"method": "manual", "publicKeyRef": "k"}});
        let o = in_schema_order(&m);
        assert_eq!(keys(&o), ["name", "version", "kind", "chains", "signing", "x-zeta", "x-alpha"]);
        let chain = &o["chains"][0];
        assert_eq!(keys(chain), ["chainId", "label", "parameters", "dag", "outputs", "x-mine"]);
        assert_eq!(keys(&chain["parameters"]), ["properties", "type"], "a parameter schema is the author's own");
        assert_eq!(keys(&chain["parameters"]["properties"]), ["b", "a"]);
        assert_eq!(keys(&chain["dag"]), ["nodes", "edges"]);
        assert_eq!(keys(&chain["dag"]["nodes"][0]), ["id", "typeId", "inputs", "compensation"]);
        assert_eq!(keys(&chain["dag"]["nodes"][0]["inputs"]), ["z", "a"], "open objects keep their order");
        assert_eq!(keys(&chain["dag"]["nodes"][0]["compensation"]), ["nodeTypeId", "inputMapping"]);
        assert_eq!(keys(&chain["dag"]["edges"][0]), ["from", "to", "condition", "triggerRule"]);
        assert_eq!(keys(&chain["dag"]["edges"][0]["condition"]), ["type", "left"]);
        assert_eq!(keys(&chain["outputs"]["o"]), ["type", "description"]);
        assert_eq!(keys(&o["signing"]), ["publicKeyRef", "method"]);
        assert_eq!(o, m, "only the order changes");
    }
}
