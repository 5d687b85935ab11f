// Visible children of a tree-sitter node in one pass, for the extraction matcher
// (`matcher.rs`, `Ctx::children`).
//
// Why C: listing children through `TSTreeCursor` (`goto_first_child`, `goto_next_sibling`,
// `current_field_id`) was about 14% of a cold index of the Rust corpus. The cursor rebuilds
// its child iterator and re-advances over the previous child at every sibling step, and
// walks its stack for every field id. Here one loop over the subtree's children emits each
// visible child with what the matcher checks, descending into hidden children as the
// cursor does.
//
// It reads tree-sitter's internal headers (`subtree.h`, `language.h`) of the exact crate
// version `Cargo.lock` pins (`build.rs` takes them from that crate's sources). What it
// emits is what the public API says about each child, rule by rule:
// * which children are visible and which hidden ones are entered:
//   `ts_tree_cursor_goto_first_child` / `goto_next_sibling` (a hidden child is entered
//   when it has visible children);
// * the node (position after padding, alias from the parent's alias sequence for
//   non-extra children): `ts_node_child` / `ts_tree_cursor_current_node`;
// * `kind`: `ts_node_symbol`; `named`: `ts_node_is_named`; `error`: `ts_node_is_error`;
//   `child_count`: `ts_node_child_count`;
// * `field` and `field_repeats`: `ts_tree_cursor_current_status`, which walks from the
//   child up through its hidden ancestors to the visible parent, one level (a node in its
//   parent) at a time, skipping levels whose node is extra. `field` is the first
//   non-inherited field map entry naming the level's structural index, at the innermost
//   level that has one; `field_repeats` (its `can_have_later_siblings_with_this_field`,
//   which the query cursor uses to decide whether a field step may look at later siblings)
//   is whether, at that level or an outer one, the parent's production names that field
//   again at a later structural index. A production answers that, not the children a node
//   happens to have: Go's `field('name', commaSep1(..))` names the field once,
//   `commaSep1(field('name', ..))` twice.
// `matcher::tests::children_are_what_a_tree_cursor_lists` compares the listing with
// `TreeCursor` at every node of every fixture and hostile-input file.

#include "tree_sitter/api.h"
#include "subtree.h"
#include "tree.h"
#include "language.h"
#include "length.h"

// One visible child; layout mirrored by `Kid` in `matcher.rs`.
typedef struct {
  TSNode node;
  uint32_t child_count;
  uint16_t kind;
  uint16_t field;
  uint8_t named;
  uint8_t error;
  uint8_t later_named;  // set by the caller
  uint8_t field_repeats;
} CgKid;

_Static_assert(sizeof(CgKid) == 48, "CgKid must match Kid in matcher.rs");

typedef struct {
  const TSTree *tree;
  const TSLanguage *language;
  CgKid *out;
  uint32_t len;
  uint32_t cap;
} CgOut;

// One level a hidden node was entered through: that node in its parent (innermost first).
typedef struct CgLevel {
  const struct CgLevel *up;
  const TSFieldMapEntry *map, *map_end;  // the parent's production's field map
  uint32_t structural;                   // the node's structural index in the parent
  bool extra;
} CgLevel;

static bool cg_named_later(const TSFieldMapEntry *map, const TSFieldMapEntry *end,
                           TSFieldId field, uint32_t structural) {
  for (const TSFieldMapEntry *m = map; m < end; m++) {
    if (m->field_id == field && m->child_index > structural) return true;
  }
  return false;
}

static TSFieldId cg_field_at(const TSFieldMapEntry *map, const TSFieldMapEntry *end,
                             uint32_t structural) {
  for (const TSFieldMapEntry *m = map; m < end; m++) {
    if (!m->inherited && m->child_index == structural) return m->field_id;
  }
  return 0;
}

// Continues `field` and `repeats` of a child with its hidden ancestors' levels `up`.
static void cg_field_status_up(const CgLevel *up, TSFieldId *field, bool *repeats) {
  for (const CgLevel *l = up; l && !(*field && *repeats); l = l->up) {
    if (l->extra) continue;
    if (!*field) *field = cg_field_at(l->map, l->map_end, l->structural);
    if (*field) *repeats = cg_named_later(l->map, l->map_end, *field, l->structural);
  }
}

static void cg_children_of(CgOut *o, Subtree parent, Length position, const CgLevel *up) {
  uint32_t count = ts_subtree_child_count(parent);
  if (count == 0) return;
  const TSLanguage *language = o->language;
  const TSSymbol *aliases = ts_language_alias_sequence(language, parent.ptr->production_id);
  const TSFieldMapEntry *map = NULL, *map_end = NULL;
  ts_language_field_map(language, parent.ptr->production_id, &map, &map_end);
  const Subtree *children = ts_subtree_children(parent);
  // The loop below reads each heap child's header (flags, padding, size): start all those
  // loads at once rather than one cache miss after another.
  for (uint32_t i = 0; i < count; i++) {
    if (!children[i].data.is_inline) __builtin_prefetch(children[i].ptr);
  }
  uint32_t structural = 0;
  for (uint32_t i = 0; i < count; i++) {
    const Subtree *child = &children[i];
    if (i > 0) position = length_add(position, ts_subtree_padding(*child));
    bool extra = ts_subtree_extra(*child);
    TSSymbol alias = 0;
    if (!extra && aliases) alias = aliases[structural];
    uint32_t index = structural;
    if (!extra) structural++;
    if (ts_subtree_visible(*child) || alias) {
      if (o->len < o->cap) {
        TSSymbol symbol = alias ? alias : ts_subtree_symbol(*child);
        CgKid *k = &o->out[o->len];
        k->node = (TSNode) {
          {position.bytes, position.extent.row, position.extent.column, alias},
          child,
          o->tree,
        };
        k->kind = ts_language_public_symbol(language, symbol);
        k->named = alias ? ts_language_symbol_metadata(language, alias).named
                         : ts_subtree_named(*child);
        k->error = k->kind == ts_builtin_sym_error;
        // The child's own level, then its hidden ancestors' (most productions name no
        // fields and most children are not under a hidden node: two quick exits).
        TSFieldId field = 0;
        bool repeats = false;
        if (!extra && map != map_end) {
          field = cg_field_at(map, map_end, index);
          if (field) repeats = cg_named_later(map, map_end, field, index);
        }
        if (up) cg_field_status_up(up, &field, &repeats);
        k->field = field;
        k->field_repeats = repeats;
        k->later_named = 0;
        uint32_t grandchildren = ts_subtree_child_count(*child);
        k->child_count = grandchildren > 0 ? child->ptr->visible_child_count : 0;
        // The matcher lists this child's children next (in tree order): its child array
        // sits just before its header.
        if (grandchildren > 0) __builtin_prefetch(ts_subtree_children(*child));
      }
      o->len++;
    } else if (ts_subtree_visible_child_count(*child) > 0) {
      CgLevel level = {up, map, map_end, index, extra};
      cg_children_of(o, *child, position, &level);
    }
    position = length_add(position, ts_subtree_size(*child));
  }
}

// Writes up to `cap` visible children of `node` to `out`; returns how many there are
// (`ts_node_child_count(node)`; more than `cap` means the list was cut).
uint32_t codegraph_visible_children(TSNode node, CgKid *out, uint32_t cap) {
  if (!node.id) return 0;
  CgOut o = {node.tree, node.tree->language, out, 0, cap};
  Length position = {node.context[0], {node.context[1], node.context[2]}};
  cg_children_of(&o, *(const Subtree *)node.id, position, NULL);
  return o.len;
}

// The walk of the matcher (`Matcher::run`): every visible node under a root in tree order
// (pre-order, hidden nodes flattened as above), reporting only those whose kind a pattern
// is rooted at. The walk needs no child lists: most nodes of a tree are not a pattern's
// root (on the npm corpus 795K of the 1.26M nodes the matcher used to list the children of
// were not), so it reads each subtree header once and writes nothing for them.
//
// It is resumable so that Rust owns its memory: it returns when the output buffer is full
// or the stack is (the caller grows it and calls again), before consuming a child.

// One subtree whose children are being walked.
typedef struct {
  Subtree parent;
  const TSSymbol *aliases;  // the parent's production's alias sequence, or NULL
  Length position;          // where the next child starts, before its padding
  uint32_t next;            // index of the next child
  uint32_t structural;      // structural index of the next child
} CgFrame;

_Static_assert(sizeof(CgFrame) == 40, "CgFrame must match Frame in matcher.rs");

typedef struct {
  const TSTree *tree;
  const uint8_t *rooted;  // rooted[kind]: a pattern starts at that public kind id
  uint32_t rooted_len;
  uint32_t depth;
  CgFrame *stack;
  uint32_t stack_cap;
} CgWalk;

_Static_assert(sizeof(CgWalk) == 40, "CgWalk must match Walk in matcher.rs");

enum { CG_WALK_DONE = 0, CG_WALK_OUT_FULL = 1, CG_WALK_STACK_FULL = 2 };

static void cg_walk_push(CgWalk *w, Subtree parent, Length position) {
  CgFrame *f = &w->stack[w->depth++];
  f->parent = parent;
  f->aliases = ts_language_alias_sequence(w->tree->language, parent.ptr->production_id);
  f->position = position;
  f->next = 0;
  f->structural = 0;
  // Its children's headers are read next, one after another: start those loads at once,
  // with the line before each header, where a node's child array ends (it is allocated
  // just before the header; for a leaf the line is a neighbour's, a harmless prefetch).
  uint32_t count = ts_subtree_child_count(parent);
  const Subtree *children = ts_subtree_children(parent);
  for (uint32_t i = 0; i < count; i++) {
    if (!children[i].data.is_inline) {
      __builtin_prefetch(children[i].ptr);
      __builtin_prefetch((const char *)children[i].ptr - 64);
    }
  }
}

// Starts a walk of the nodes under `node` (not `node` itself). Needs `stack_cap >= 1`.
void codegraph_walk_start(CgWalk *w, TSNode node) {
  w->depth = 0;
  if (!node.id) return;
  Subtree root = *(const Subtree *)node.id;
  if (ts_subtree_visible_child_count(root) == 0) return;
  Length position = {node.context[0], {node.context[1], node.context[2]}};
  cg_walk_push(w, root, position);
}

// Writes the next rooted nodes (up to `cap`) to `out`, sets `*written`, and says why it
// stopped: CG_WALK_DONE (the walk is over), CG_WALK_OUT_FULL or CG_WALK_STACK_FULL (call
// again, after growing `stack` for the latter).
int32_t codegraph_walk_next(CgWalk *w, TSNode *out, uint32_t cap, uint32_t *written) {
  const TSLanguage *language = w->tree->language;
  uint32_t n = 0;
  int32_t status = CG_WALK_DONE;
  while (w->depth > 0) {
    CgFrame *f = &w->stack[w->depth - 1];
    if (f->next == ts_subtree_child_count(f->parent)) {
      w->depth--;
      continue;
    }
    if (n == cap) { status = CG_WALK_OUT_FULL; break; }
    if (w->depth == w->stack_cap) { status = CG_WALK_STACK_FULL; break; }
    const Subtree *child = &ts_subtree_children(f->parent)[f->next];
    if (f->next > 0) f->position = length_add(f->position, ts_subtree_padding(*child));
    Length position = f->position;
    bool extra = ts_subtree_extra(*child);
    TSSymbol alias = 0;
    if (!extra && f->aliases) alias = f->aliases[f->structural];
    if (!extra) f->structural++;
    f->next++;
    f->position = length_add(f->position, ts_subtree_size(*child));
    if (ts_subtree_visible(*child) || alias) {
      TSSymbol kind = ts_language_public_symbol(language, alias ? alias : ts_subtree_symbol(*child));
      if (kind < w->rooted_len && w->rooted[kind]) {
        out[n++] = (TSNode) {
          {position.bytes, position.extent.row, position.extent.column, alias},
          child,
          w->tree,
        };
      }
    }
    if (ts_subtree_visible_child_count(*child) > 0) cg_walk_push(w, *child, position);
  }
  *written = n;
  return status;
}
