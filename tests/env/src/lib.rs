//! `#[needs(corpus, display, registry_tools, node, openwop_registry)]` on a test: the test is marked
//! `#[ignore = "needs …"]` (listed by `cargo test` as ignored, with the reason) when this
//! machine lacks any of them, and left as it is otherwise. `present!(corpus)` is the same
//! answer as a `bool` literal, for a test that reads the corpus only in some cases.
//!
//! Put `#[needs(...)]` above `#[test]`: the test harness reads `#[ignore]` when `#[test]`
//! expands, so the mark must be there first.

use proc_macro::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

/// One requirement: its name in the attribute, whether the probe found it, and the reason
/// a test that needs it is ignored without it.
struct Requirement {
    name: &'static str,
    present: bool,
    reason: &'static str,
}

const REQUIREMENTS: [Requirement; 5] = [
    Requirement {
        name: "corpus",
        present: cfg!(has_corpus),
        reason: "the shared corpus (../shared/corpus or $CHAINSMITH_SHARED)",
    },
    Requirement {
        name: "display",
        present: cfg!(has_display),
        reason: "Xvfb and xdotool on PATH (apt-get install xvfb xdotool)",
    },
    Requirement {
        name: "registry_tools",
        present: cfg!(has_registry_tools),
        reason: "python3, openssl and node on PATH",
    },
    Requirement { name: "node", present: cfg!(has_node), reason: "node 18+ on PATH" },
    Requirement {
        name: "openwop_registry",
        present: cfg!(has_openwop_registry),
        reason: "$CHAINSMITH_OPENWOP_REGISTRY naming the OpenWOP registry's served tree",
    },
];

fn requirement(name: &str) -> &'static Requirement {
    REQUIREMENTS.iter().find(|r| r.name == name).unwrap_or_else(|| {
        let known: Vec<&str> = REQUIREMENTS.iter().map(|r| r.name).collect();
        panic!("unknown requirement `{name}`; known: {}", known.join(", "))
    })
}

fn names(args: TokenStream) -> Vec<String> {
    args.into_iter()
        .filter_map(|t| match t {
            TokenTree::Ident(i) => Some(i.to_string()),
            _ => None,
        })
        .collect()
}

#[proc_macro_attribute]
pub fn needs(args: TokenStream, item: TokenStream) -> TokenStream {
    let missing: Vec<&str> =
        names(args).iter().map(|n| requirement(n)).filter(|r| !r.present).map(|r| r.reason).collect();
    if missing.is_empty() {
        return item;
    }
    let reason = format!("needs {}", missing.join("; and "));
    let ignore: TokenStream = [
        TokenTree::Ident(Ident::new("ignore", Span::call_site())),
        TokenTree::Punct(Punct::new('=', Spacing::Alone)),
        TokenTree::Literal(Literal::string(&reason)),
    ]
    .into_iter()
    .collect();
    let mut out: TokenStream =
        [TokenTree::Punct(Punct::new('#', Spacing::Alone)), TokenTree::Group(Group::new(Delimiter::Bracket, ignore))]
            .into_iter()
            .collect();
    out.extend(item);
    out
}

#[proc_macro]
pub fn present(args: TokenStream) -> TokenStream {
    let all = names(args).iter().all(|n| requirement(n).present);
    TokenTree::Ident(Ident::new(if all { "true" } else { "false" }, Span::call_site())).into()
}
