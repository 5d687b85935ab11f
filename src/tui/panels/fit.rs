//! Cutting a list row to its panel's width: a symbol's name, then its place (`path:line`).
//! Every list (search results, text hits, the call tree, the impact list) lays its rows
//! out through [`fit_row`], so they all give way in the same order: the path first, then
//! the qualifier, and never the line number or the symbol's own name. A line number cut
//! at the panel's edge (`…:2` for line 290) is a wrong fact, and a name cut from the
//! front makes siblings identical (`…lesHandler.__call__` for two handler classes).
//! Widths are counted in chars: names and paths reach here through `safe`, which shows
//! control characters as escapes.

use ratatui::text::{Line, Span};

/// How a row's name and place were cut by [`fit_row`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted {
    /// Leading chars of the name to drop (shown as one `…`); 0 when the name's start is
    /// shown.
    pub skip: usize,
    /// A char range of the name (after `skip`) shown as one `…`: the middle of a segment
    /// too long for the row, so that siblings (`StaticFilesHandler`,
    /// `ASGIStaticFilesHandler`) still differ in what is left of both ends.
    pub mid: Option<(usize, usize)>,
    /// The place as drawn after the name: two spaces, the (possibly cut) path, the tail.
    pub place: String,
}

impl Fitted {
    fn whole(place: String) -> Fitted {
        Fitted {
            skip: 0,
            mid: None,
            place,
        }
    }

    fn skipping(skip: usize, place: String) -> Fitted {
        Fitted {
            skip,
            mid: None,
            place,
        }
    }

    /// Whether char `i` of the name is drawn as itself (not dropped or under a `…`).
    pub fn shows(&self, i: usize) -> bool {
        i >= self.skip && !self.mid.is_some_and(|(a, b)| i >= a && i < b)
    }

    /// Whether a `…` is drawn before char `i` of the name.
    pub fn ellipsis_at(&self, i: usize) -> bool {
        (self.skip > 0 && i == self.skip) || self.mid.is_some_and(|(a, _)| a == i)
    }
}

/// Char index where each segment of a qualified name starts (after `.` or `:`), the
/// first segment (index 0) included.
fn segment_starts(name: &str) -> Vec<usize> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = vec![0];
    for i in 1..chars.len() {
        if matches!(chars[i - 1], '.' | ':') && !matches!(chars[i], '.' | ':') {
            out.push(i);
        }
    }
    out
}

/// Lays out a row of `width` columns whose other parts (indent, kind marker, tier tags)
/// take `fixed` columns: the name `name`, then two spaces, `path` and `tail` (`:290`, or
/// `:290-301  0.812`: what must never be cut). In order, until the row fits:
/// 1. the path is shortened ([`fit_path`]) down to about its file name;
/// 2. the qualifier loses whole segments from the module side, down to the last two
///    segments of the name (`…StaticFilesHandler.__call__`);
/// 3. the path is shortened further, down to `…` (one space before it, not two, when
///    that is the column the last two segments lack);
/// 4. the second-last segment loses its middle (or goes, when too short to give enough),
///    then the last segment (the name) loses its middle.
///
/// The tail is always whole: a row too narrow even for `…` and the name's last segment
/// overflows at the edge with its line number still next to the name.
pub fn fit_row(width: usize, fixed: usize, name: &str, path: &str, tail: &str) -> Fitted {
    let avail = width.saturating_sub(fixed);
    let nlen = name.chars().count();
    let plen = path.chars().count();
    let tlen = tail.chars().count();
    let file_len = path.rsplit('/').next().map_or(plen, |f| f.chars().count());
    // A path cut to a few chars of its file name (`h…`) says nothing: `…` says it is cut.
    let place = |budget: usize| {
        if budget >= plen || budget >= file_len.min(8) {
            format!("  {}{tail}", fit_path(path, budget))
        } else {
            format!("  …{tail}")
        }
    };
    // Room the path has next to a name of `n` columns.
    let path_room = |n: usize| avail.saturating_sub(n + 2 + tlen);
    if nlen + 2 + plen + tlen <= avail {
        return Fitted::whole(place(plen));
    }
    let path_min = plen.min((file_len + 2).min(avail / 3)).max(1);
    if path_room(nlen) >= path_min {
        return Fitted::whole(place(path_room(nlen)));
    }
    let starts = segment_starts(name);
    let own = *starts.last().unwrap_or(&0);
    let two = if starts.len() >= 2 {
        starts[starts.len() - 2]
    } else {
        0
    };
    // Shown width of the name with its first `cut` chars replaced by `…`.
    let shown = |cut: usize| if cut == 0 { nlen } else { nlen - cut + 1 };
    for &cut in starts.iter().filter(|&&c| c > 0 && c <= two) {
        if path_room(shown(cut)) >= path_min {
            return Fitted::skipping(cut, place(path_room(shown(cut))));
        }
    }
    if path_room(shown(two)) >= 1 {
        return Fitted::skipping(two, place(path_room(shown(two))));
    }
    // The path is `…`; the segment before the name, then the name itself, loses its
    // middle (both ends are what tell siblings apart).
    let room = avail.saturating_sub(2 + 1 + tlen).max(1);
    let place = format!("  …{tail}");
    if shown(two) <= room {
        return Fitted::skipping(two, place);
    }
    // One space, not two, before a place that is only `…` and the line, when that column
    // is all the last two segments lack.
    if shown(two) + 1 + 1 + tlen <= avail {
        return Fitted::skipping(two, format!(" …{tail}"));
    }
    // Chars to take out of the name (one more for the `…` put in their place).
    let over = shown(two) - room;
    let sep = if own > 0 {
        let chars: Vec<char> = name.chars().collect();
        if own >= 2 && chars[own - 2] == ':' {
            2
        } else {
            1
        }
    } else {
        0
    };
    let (seg_start, seg_end) = if own > two {
        (two, own - sep)
    } else {
        (own, nlen)
    };
    let seg = seg_end - seg_start;
    if seg >= over + 3 {
        let head = (seg - over - 1).div_ceil(2);
        let a = seg_start + head;
        return Fitted {
            skip: two,
            mid: Some((a, a + over + 1)),
            place,
        };
    }
    // The parent segment is too short to give enough: it goes, the name loses its middle.
    let left = nlen - own + 1;
    let over = left.saturating_sub(room);
    let own_len = nlen - own;
    let mid = (over > 0 && own_len >= over + 3).then(|| {
        let a = own + (own_len - over - 1).div_ceil(2);
        (a, a + over + 1)
    });
    Fitted {
        skip: own.max(two),
        mid,
        place,
    }
}

/// Whether `f` (a [`fit_row`] of `name`, `path` and `tail`) shows the name's last two
/// segments and the path's file name whole: what a row's optional parts give way to.
pub fn keeps_name_and_file(name: &str, path: &str, tail: &str, f: &Fitted) -> bool {
    let starts = segment_starts(name);
    let two = if starts.len() >= 2 {
        starts[starts.len() - 2]
    } else {
        0
    };
    let file = path.rsplit('/').next().unwrap_or(path);
    // `fit_path` keeps the file name whole or ends its cut in `…`.
    f.skip <= two && f.mid.is_none() && f.place.ends_with(&format!("{file}{tail}"))
}

/// [`fit_row`] for a row with a note drawn after its name (` maybe used (2 unresolved)`),
/// offered in `notes`, longest first: the first note with which the row keeps the name's
/// last two segments and the file name ([`keeps_name_and_file`]), else no note (`""`).
/// `fixed` leaves the note out; a note takes its chars and one space.
pub fn fit_noted_row<'n>(
    width: usize,
    fixed: usize,
    notes: &[&'n str],
    name: &str,
    path: &str,
    tail: &str,
) -> (&'n str, Fitted) {
    for &note in notes.iter().filter(|n| !n.is_empty()) {
        let f = fit_row(width, fixed + 1 + note.chars().count(), name, path, tail);
        if keeps_name_and_file(name, path, tail, &f) {
            return (note, f);
        }
    }
    ("", fit_row(width, fixed, name, path, tail))
}

/// Columns a symbol or caller row of a panel `width` columns wide keeps for its file and
/// line when its name is long (the name is cut first): enough for `…/file_name.rs:1234`
/// (24), at most a third of the panel.
pub fn min_path(width: u16) -> usize {
    24.min(width as usize / 3)
}

/// `path` (already safe) in at most `budget` chars: whole when it fits, else its last
/// components after `…/` (the file name and as many folders above it as fit), or the start
/// of the file name before `…` when even that is too long. A long path is cut at the
/// start, not the end: in a deep tree the end is what tells rows apart
/// (`…/examples/basic.rs`).
pub fn fit_path(path: &str, budget: usize) -> String {
    let len = path.chars().count();
    if len <= budget {
        return path.to_string();
    }
    let mut start = None;
    for (i, _) in path.match_indices('/') {
        if path[i..].chars().count() < budget {
            start = Some(i);
            break;
        }
    }
    match start {
        Some(i) => format!("…{}", &path[i..]),
        None => {
            let name = path.rsplit('/').next().unwrap_or(path);
            if name.chars().count() <= budget {
                return name.to_string();
            }
            let head: String = name.chars().take(budget.saturating_sub(1)).collect();
            format!("{head}…")
        }
    }
}

/// `name` as [`fit_row`] cut it: dropped chars left out, one `…` where they were.
pub fn cut_name(name: &str, f: &Fitted) -> String {
    let mut out = String::with_capacity(name.len());
    for (i, c) in name.chars().enumerate() {
        if f.ellipsis_at(i) {
            out.push('…');
        }
        if f.shows(i) {
            out.push(c);
        }
    }
    out
}

/// `spans` cut to `width` columns, the span that crosses the edge ending in "…": a long
/// error or notice (a cache rebuilt and why), or a panel's line of counts, would otherwise
/// be clipped mid-word with no sign that it goes on.
pub fn fit_spans(spans: Vec<Span<'_>>, width: usize) -> Vec<Span<'_>> {
    if spans.iter().map(Span::width).sum::<usize>() <= width {
        return spans;
    }
    let mut out = Vec::new();
    let mut used = 0;
    for s in spans {
        let w = s.width();
        if used + w < width {
            used += w;
            out.push(s);
            continue;
        }
        let room = width.saturating_sub(used + 1);
        let (mut text, mut cols) = (String::new(), 0);
        for ch in s.content.chars() {
            let cw = Span::raw(ch.to_string()).width();
            if cols + cw > room {
                break;
            }
            cols += cw;
            text.push(ch);
        }
        if width > used {
            text.push('…');
            out.push(Span::styled(text, s.style));
        }
        break;
    }
    out
}

/// `line` cut to `width` columns by [`fit_spans`] (its style kept).
pub fn fit_line(line: Line<'_>, width: usize) -> Line<'_> {
    let style = line.style;
    Line::from(fit_spans(line.spans, width)).style(style)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(width: usize, fixed: usize, name: &str, path: &str, tail: &str) -> String {
        let f = fit_row(width, fixed, name, path, tail);
        format!("{}{}", cut_name(name, &f), f.place)
    }

    #[test]
    fn long_paths_keep_their_end() {
        let p =
            "registry/src/index.crates.io-1949cf8c6b5b557f/tantivy-0.22.1/examples/basic_search.rs";
        assert_eq!(fit_path(p, 200), p);
        assert_eq!(fit_path(p, 41), "…/tantivy-0.22.1/examples/basic_search.rs");
        assert_eq!(fit_path(p, 40), "…/examples/basic_search.rs");
        assert_eq!(fit_path(p, 30), "…/examples/basic_search.rs");
        assert_eq!(fit_path(p, 10), "basic_sea…");
        assert_eq!(fit_path("app/handlers.py", 11), "handlers.py");
        assert!(fit_path(p, 40).chars().count() <= 40);
        assert_eq!(fit_path("a/b.rs", 3), "b.…");
        assert_eq!(fit_path("é/üx.rs", 4), "üx.…");
        assert_eq!(fit_path("é/üx.rs", 0), "…");
    }

    /// The path gives way first, then the module side of the name; the line number and
    /// the last two segments stay (two handler classes' `__call__` stay told apart).
    #[test]
    fn rows_cut_the_path_then_the_qualifier_never_the_line() {
        let name = "django.contrib.staticfiles.handlers.StaticFilesHandler.__call__";
        let path = "django/contrib/staticfiles/handlers.py";
        let whole = format!("{name}  {path}:290");
        assert_eq!(row(200, 0, name, path, ":290"), whole);
        // The path first, down to its file name.
        let r = row(whole.chars().count() - 10, 0, name, path, ":290");
        assert!(r.starts_with(name) && r.ends_with("handlers.py:290"), "{r}");
        // Then the qualifier, whole segments from the module side.
        let r = row(70, 0, name, path, ":290");
        assert!(r.ends_with(":290"), "{r}");
        assert!(
            r.starts_with("…staticfiles.handlers.StaticFilesHandler.__call__")
                || r.starts_with("…handlers.StaticFilesHandler.__call__"),
            "{r}"
        );
        assert!(r.chars().count() <= 70, "{r}");
        // Narrower: the last two segments, the path down to `…`.
        let r = row(36, 0, name, path, ":290");
        assert!(r.starts_with("…StaticFilesHandler.__call__  "), "{r}");
        assert!(r.ends_with(":290"), "{r}");
        assert!(r.chars().count() <= 36, "{r}");
        // One column short of that: one space before the `…` goes, not a char of the name.
        let r = row(34, 0, name, path, ":290");
        assert_eq!(r, "…StaticFilesHandler.__call__ …:290");
        // Narrower still: the class name loses its middle, `__call__` and 290 stay.
        let r = row(24, 0, name, path, ":290");
        assert_eq!(r, "…Sta…ler.__call__  …:290");
        // Too narrow for even that: the name's last segment and the line stay whole.
        let r = row(10, 0, name, path, ":290");
        assert!(r.contains("__call__") && r.ends_with(":290"), "{r}");
    }

    #[test]
    fn fixed_columns_and_ranges_are_kept() {
        let r = row(
            40,
            10,
            "app.render.render_json",
            "app/render.py",
            ":6-11  0.812",
        );
        assert!(r.ends_with(":6-11  0.812"), "{r}");
        assert!(r.contains("render_json"), "{r}");
        assert!(r.chars().count() <= 30, "{r}");
        // Narrower than the name: its middle goes, both ends and the tail stay.
        let r = row(
            30,
            10,
            "app.render.render_json",
            "app/render.py",
            ":6-11  0.812",
        );
        assert_eq!(r, "…re…n  …:6-11  0.812");
        assert_eq!(segment_starts("a::b::C::f"), vec![0, 3, 6, 9]);
        assert_eq!(row(9, 0, "f", "a.rs", ":1"), "f  a.rs:1");
        assert_eq!(row(8, 0, "f", "a.rs", ":1"), "f  …:1");
    }

    /// A note gives way (its shorter form, then none) before the name's last two
    /// segments and the file name.
    #[test]
    fn notes_give_way_before_the_name_and_the_file() {
        let notes = ["maybe used (27 unresolved)", "maybe used"];
        let noted = |w| {
            let (note, f) = fit_noted_row(w, 6, &notes, "AuditLog.save", "app/store.py", ":28");
            format!("{}|{note}|{}", cut_name("AuditLog.save", &f), f.place)
        };
        assert_eq!(
            noted(80),
            "AuditLog.save|maybe used (27 unresolved)|  app/store.py:28"
        );
        assert_eq!(noted(43), "AuditLog.save|maybe used|  store.py:28");
        assert_eq!(noted(36), "AuditLog.save||  app/store.py:28");
        // Narrower than the name and file alone: no note, the row cut as fit_row cuts it.
        assert_eq!(noted(25), "AuditLog.save||  …:28");
    }
}
