#!/usr/bin/env python3
"""Turns `tmux capture-pane -e -p` output (text with SGR colour codes) into an SVG.

Usage: ansi2svg.py WIDTH HEIGHT [light] < capture.txt > shot.svg
`light` draws the terminal's default colours as a light terminal's (dark text on a light
background), for the light theme, which leaves most cells at the terminal's default.
Handles the SGR codes the TUI emits: reset, bold, dim, italic, underline, reverse,
16/256/24-bit foreground and background colours.
"""
import html
import re
import sys

CW, CH = 8.4, 17.0  # cell size in px
DEFAULT_FG, DEFAULT_BG = "#d0d0d0", "#1c1c1c"
# A light terminal's defaults: the light theme's own `fg` and `bg` (themes/light.toml).
LIGHT_FG, LIGHT_BG = "#383a42", "#fafafa"
BASE16 = ["#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd",
          "#e5e5e5", "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6",
          "#29b8db", "#ffffff"]


def c256(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (v, v, v)


def parse(lines, width, height):
    cells = [[(" ", None) for _ in range(width)] for _ in range(height)]
    st = dict(fg=None, bg=None, bold=False, dim=False, it=False, ul=False, rev=False)
    for y, line in enumerate(lines[:height]):
        x = 0
        for tok in re.split(r"(\x1b\[[0-9;]*m)", line):
            if tok.startswith("\x1b["):
                codes = [int(c) if c else 0 for c in tok[2:-1].split(";")]
                i = 0
                while i < len(codes):
                    c = codes[i]
                    if c == 0:
                        st = dict(fg=None, bg=None, bold=False, dim=False, it=False, ul=False, rev=False)
                    elif c == 1: st["bold"] = True
                    elif c == 2: st["dim"] = True
                    elif c == 3: st["it"] = True
                    elif c == 4: st["ul"] = True
                    elif c == 7: st["rev"] = True
                    elif c == 22: st["bold"] = st["dim"] = False
                    elif c == 23: st["it"] = False
                    elif c == 24: st["ul"] = False
                    elif c == 27: st["rev"] = False
                    elif 30 <= c <= 37: st["fg"] = BASE16[c - 30]
                    elif 90 <= c <= 97: st["fg"] = BASE16[c - 90 + 8]
                    elif 40 <= c <= 47: st["bg"] = BASE16[c - 40]
                    elif 100 <= c <= 107: st["bg"] = BASE16[c - 100 + 8]
                    elif c == 39: st["fg"] = None
                    elif c == 49: st["bg"] = None
                    elif c in (38, 48) and i + 1 < len(codes):
                        key = "fg" if c == 38 else "bg"
                        if codes[i + 1] == 5 and i + 2 < len(codes):
                            st[key] = c256(codes[i + 2]); i += 2
                        elif codes[i + 1] == 2 and i + 4 < len(codes):
                            st[key] = "#%02x%02x%02x" % tuple(codes[i + 2:i + 5]); i += 4
                    i += 1
                continue
            for ch in tok:
                if x < width:
                    cells[y][x] = (ch, dict(st))
                x += 1
    return cells


def main():
    global DEFAULT_FG, DEFAULT_BG
    width, height = int(sys.argv[1]), int(sys.argv[2])
    if len(sys.argv) > 3 and sys.argv[3] == "light":
        DEFAULT_FG, DEFAULT_BG = LIGHT_FG, LIGHT_BG
    lines = sys.stdin.read().split("\n")
    cells = parse(lines, width, height)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="14">'
           % (width * CW, height * CH),
           '<rect width="100%%" height="100%%" fill="%s"/>' % DEFAULT_BG]
    for y, row in enumerate(cells):
        for x, (ch, st) in enumerate(row):
            st = st or {}
            fg, bg = st.get("fg") or DEFAULT_FG, st.get("bg")
            if st.get("rev"):
                fg, bg = (bg or DEFAULT_BG), fg
            if bg:
                out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                           % (x * CW, y * CH, CW + 0.5, CH + 0.5, bg))
            if ch != " ":
                attrs = ['x="%.1f" y="%.1f" fill="%s"' % (x * CW, y * CH + 13, fg)]
                if st.get("bold"): attrs.append('font-weight="bold"')
                if st.get("it"): attrs.append('font-style="italic"')
                if st.get("dim"): attrs.append('opacity="0.6"')
                if st.get("ul"): attrs.append('text-decoration="underline"')
                out.append("<text %s>%s</text>" % (" ".join(attrs), html.escape(ch)))
    out.append("</svg>")
    print("\n".join(out))


if __name__ == "__main__":
    main()
