//! Types stated by doc comments (the language's [`ExtractionRules::doc_tags`]): a
//! `/** @type {T} */` above a declaration or before a value types that name, a
//! definition's `@param`/`@returns` type its parameters and result, and `@import` tags
//! bind type names like import statements. Comments and the names they may type are
//! collected during the file's one walk and joined after it by row and byte offset (the
//! walk meets a cast comment after the declaration holding it), so no node is revisited.
//! Such types carry the [`DOC_TYPE`] mark.
//!
//! [`ExtractionRules::doc_tags`]: crate::index::lang::ExtractionRules::doc_tags

use foldhash::HashMap;
use tree_sitter::Node;

use super::imports::Bindings;
use super::nodes::{node_text, squash};
use crate::index::facts::{Import, DOC_TYPE};
use crate::index::lang::DocTags;

/// One file's doc-comment types, collected during the walk.
#[derive(Default)]
pub(super) struct DocTypes {
    /// `@type` of a comment that starts its line, by the 0-based row it ends on.
    by_end_row: HashMap<usize, String>,
    /// `@type` of every comment, by its end byte (casts `/** @type {T} */ (v)`).
    by_end_byte: HashMap<usize, String>,
    /// Names a `@type` may type: (name token offset, name, 0-based row, end byte of a
    /// comment right before its value).
    pending: Vec<(usize, String, usize, Option<usize>)>,
}

impl DocTypes {
    /// A comment `n`: its `@type` kept by position, its imports added to `imports` (keyed
    /// like import statements, by the comment's start).
    pub(super) fn on_comment(
        &mut self,
        parse: fn(&str, u32) -> DocTags,
        n: Node<'_>,
        text: &str,
        imports: &mut Vec<(usize, usize, Import)>,
    ) {
        let t = node_text(n, text);
        if !t.starts_with("/**") || !t.contains('@') {
            return;
        }
        let start = n.start_position();
        let tags = parse(t, start.row as u32 + 1);
        for (i, imp) in tags.imports.into_iter().enumerate() {
            imports.push((n.start_byte(), n.start_byte() + i, imp));
        }
        let Some(ty) = tags.type_name else {
            return;
        };
        let line_start = n.start_byte() - start.column;
        if text
            .get(line_start..n.start_byte())
            .is_some_and(|p| p.trim().is_empty())
        {
            self.by_end_row.insert(n.end_position().row, ty.clone());
        }
        self.by_end_byte.insert(n.end_byte(), ty);
    }

    /// A name (`@local.doc`) that a `@type` comment above its row, or one right before its
    /// value, may type.
    pub(super) fn on_name(&mut self, n: Node<'_>, text: &str) {
        // A comment between `=` and the value is the name's next named sibling.
        let cast = n
            .next_named_sibling()
            .filter(|s| s.kind() == "comment")
            .map(|s| s.end_byte());
        // The comment above the row was met before the name (tree order): without one
        // and without a cast there is nothing to type.
        let row = n.start_position().row;
        let above = row
            .checked_sub(1)
            .is_some_and(|r| self.by_end_row.contains_key(&r));
        if cast.is_none() && !above {
            return;
        }
        self.pending
            .push((n.start_byte(), squash(node_text(n, text)), row, cast));
    }

    /// The typed names, bound with the [`DOC_TYPE`] mark.
    pub(super) fn finish(self, bindings: &mut Bindings) {
        for (at, name, row, cast) in self.pending {
            let ty = cast
                .and_then(|e| self.by_end_byte.get(&e))
                .or_else(|| row.checked_sub(1).and_then(|r| self.by_end_row.get(&r)));
            if let Some(ty) = ty {
                bindings.add(at, name, format!("{DOC_TYPE}{ty}"), row as u32 + 1);
            }
        }
    }
}
