#!/usr/bin/python3
"""Lists MemWall's long C++ functions and checks that each very long one says why (issue #39).

    tools/function-lengths.py [--min N] [--check] [--limit L] [--root DIR] [folders...]

Scans the .cpp and .h files under core/ app/ ui/ python/ tests/tools tests/bench (or the folders given, relative to the
repository's top folder) and prints every function of at least N lines (default 60), longest first, then how many
functions fall in each band: 60-99, 100-119, 120-199 and 200+ lines.

A function's length counts the lines from the one holding its name to the one holding its closing brace. Lambdas and
local classes count towards the function they are written in.

With --check it exits with status 1 when a function is longer than L lines (default 120) and the comment block right
above it (the comment lines that end on the line before its signature, or before its `template` line) has no line
starting with "Long because" (CONTRIBUTING.md, "Long functions"). CTest runs the check as `function_lengths`.

The scanner matches braces after removing comments, string and character literals and preprocessor lines. It is a
developer's tool, not a C++ parser: a function is a `{` at namespace or class scope whose text since the previous
`;`, `{` or `}` has a parameter list and is not a class, enum, namespace, control statement or initialiser.
"""

import argparse
import os
import re
import sys

DEFAULT_FOLDERS = ["core", "app", "ui", "python", "tests/tools", "tests/bench"]
BANDS = [(60, 99), (100, 119), (120, 199), (200, None)]
REASON = "Long because"

CONTROL = {"if", "for", "while", "switch", "catch", "do", "else", "try", "return", "sizeof", "decltype", "alignof",
           "static_assert", "requires", "noexcept", "alignas"}
TYPE_KEYWORDS = ("class", "struct", "union", "enum", "namespace")


def strip_code(text):
    """The text with comments, string/char literals and preprocessor lines blanked out (newlines kept), and the
    comment lines: a set of line numbers (1-based) holding only a comment, mapped to the comment's text."""
    out = []
    comments = {}  # line -> comment text for lines whose code part is blank
    code_on_line = {}
    i, n, line = 0, len(text), 1
    at_line_start = True

    def note_code(ln):
        code_on_line[ln] = True

    while i < n:
        c = text[i]
        if c == "\n":
            out.append("\n")
            line += 1
            i += 1
            at_line_start = True
            continue
        if at_line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if at_line_start and c == "#":
            # A preprocessor line, with its continuations.
            while i < n:
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    line += 1
                    i += 2
                    continue
                if text[i] == "\n":
                    break
                out.append(" ")
                i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            comments.setdefault(line, []).append(text[i + 2:j].strip())
            out.append(" " * (j - i))
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            body = text[i + 2:j - 2]
            for k, part in enumerate(body.split("\n")):
                comments.setdefault(line + k, []).append(part.strip().lstrip("*").strip())
            for ch in text[i:j]:
                out.append("\n" if ch == "\n" else " ")
            line += text.count("\n", i, j)
            i = j
            continue
        m = re.match(r'(?:u8|u|U|L)?R"([^(\s]*)\(', text[i:i + 40])
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = text.find(")" + m.group(1) + '"', i + m.end())
            end = n if end < 0 else end + len(m.group(1)) + 2
            note_code(line)
            for ch in text[i:end]:
                out.append("\n" if ch == "\n" else " ")
            line += text.count("\n", i, end)
            i = end
            continue
        if c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            # A digit separator (1'000) is a quote after a digit: it is skipped by the test above.
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            note_code(line)
            out.append(c + " " * max(0, j - i - 1) + c)
            i = j + 1
            continue
        if not c.isspace():
            note_code(line)
        out.append(c)
        i += 1
    comment_lines = {ln: parts for ln, parts in comments.items() if ln not in code_on_line}
    return "".join(out), comment_lines


def header_name(header):
    """The function's name in its header (the text before its body), or None when the header is not a function's."""
    h = re.sub(r"\s+", " ", header).strip()
    h = re.sub(r"^(public|private|protected|signals|Q_SIGNALS|public slots|private slots|protected slots)\s*:\s*",
               "", h)
    if not h or "(" not in h:
        return None
    if re.match(r"^(template\s*<.*>\s*)?(%s)\b" % "|".join(TYPE_KEYWORDS), h) and "(" not in h.split("{")[0][:0]:
        # `class X : public Y` has no parameter list before the brace; `enum class` neither.
        if not re.search(r"\)\s*(const|noexcept|override|final|->|\s)*$", h):
            return None
    if h.endswith("=") or re.search(r"=\s*$", h):
        return None
    # The parameter list: the last top-level (...) before the qualifiers / initialiser list.
    depth = 0
    first_open = None
    for k, ch in enumerate(h):
        if ch == "(":
            if depth == 0 and first_open is None:
                first_open = k
            depth += 1
        elif ch == ")":
            depth -= 1
    if first_open is None or depth != 0:
        return None
    before = h[:first_open].rstrip()
    m = re.search(r"((?:[A-Za-z_~][\w]*\s*(?:<[^()]*>)?\s*::\s*)*(?:operator\s*(?:\(\)|[^\s(]+)|~?[A-Za-z_]\w*))$",
                  before)
    if not m:
        return None
    name = re.sub(r"\s+", "", m.group(1))
    last = name.split("::")[-1]
    if last in CONTROL or last in TYPE_KEYWORDS:
        return None
    prefix = before[:m.start()].strip()
    # `x = foo(...) {` or `return foo(...) {`: not a definition.
    if "=" in prefix.replace("operator=", "").replace("==", "") and not name.split("::")[-1].startswith("operator"):
        return None
    if re.search(r"\b(return|new|throw)\s*$", prefix):
        return None
    if prefix.endswith(("(", ",", "[", "?", ":")) and not prefix.endswith("::"):
        return None
    return name


def scan_functions(path):
    """[(name, first_line, last_line, reason_given)] for the functions defined in the file at `path`."""
    with open(path, encoding="utf-8", errors="replace") as f:
        raw = f.read()
    code, comment_lines = strip_code(raw)
    functions = []
    stack = []  # "scope" (namespace, class, extern block), a function's (name, line, start), "block", "init"
    header_start = 0
    line = 1
    header_line = None  # line of the first non-blank character of the current header
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c == "\n":
            line += 1
        elif c in ";":
            if not any(is_func(s) for s in stack):
                header_start, header_line = i + 1, None
        elif c == "{":
            if any(is_func(s) for s in stack):
                stack.append("block")
            else:
                header = code[header_start:i]
                h = re.sub(r"\s+", " ", header).strip()
                if re.search(r"\)\s*(?:const\s*|noexcept\s*|override\s*|final\s*)*:[^:]", h) and \
                        re.search(r"[\w>]\s*$", h) and not re.search(r"\)\s*(?:const|noexcept|override|final)?\s*$", h):
                    # A member's brace initialiser in a constructor's initialiser list: `: x_{1}, y_{2} {`.
                    stack.append("init")
                    i += 1
                    continue
                name = header_name(header)
                if name:
                    stack.append(("func", name, header_line or line, header_start))
                else:
                    stack.append("scope")
                    header_start, header_line = i + 1, None
        elif c == "}":
            top = stack.pop() if stack else "scope"
            if isinstance(top, tuple):
                _, name, first, hstart = top
                functions.append((name, first, line, has_reason(raw, comment_lines, first)))
                header_start, header_line = i + 1, None
            elif top == "init":
                pass
            elif not any(isinstance(s, tuple) for s in stack):
                header_start, header_line = i + 1, None
        elif not c.isspace() and header_line is None and (not stack or stack[-1] == "scope"):
            header_line = line
        i += 1
    return functions


def has_reason(raw, comment_lines, first_line):
    """Whether the comment block ending on the line above `first_line` (or above a `template` line right above it)
    has a line starting with REASON."""
    lines = raw.split("\n")
    ln = first_line - 1
    # The signature may start with `template <...>` on its own line, already part of the header; attributes and
    # macros like Q_INVOKABLE likewise. Step over blank-free comment lines only.
    block = []
    while ln >= 1 and ln in comment_lines:
        block = comment_lines[ln] + block
        ln -= 1
    return any(part.lstrip("/ ").startswith(REASON) for part in block)


def is_func(s):
    return isinstance(s, tuple)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="*", help="folders to scan, relative to --root (default: %s)" %
                        " ".join(DEFAULT_FOLDERS))
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="the repository's top folder (default: the one holding this tool)")
    parser.add_argument("--min", type=int, default=60, help="list the functions of at least this many lines")
    parser.add_argument("--check", action="store_true",
                        help='fail when a function over --limit lines has no "%s" comment above it' % REASON)
    parser.add_argument("--limit", type=int, default=120, help="the length --check allows without a reason")
    parser.add_argument("--exclude", action="append", default=[],
                        help="skip the files under this folder (relative to --root); may be repeated")
    args = parser.parse_args()

    folders = args.folders or DEFAULT_FOLDERS
    found = []
    for folder in folders:
        top = os.path.join(args.root, folder)
        if not os.path.isdir(top):
            print("function-lengths: %s: no such folder" % top, file=sys.stderr)
            return 2
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            for fn in sorted(filenames):
                if not fn.endswith((".cpp", ".h")):
                    continue
                path = os.path.join(dirpath, fn)
                rel = os.path.relpath(path, args.root)
                if any(rel.startswith(e.rstrip("/") + "/") for e in args.exclude):
                    continue
                for name, first, last, reason in scan_functions(path):
                    found.append((last - first + 1, rel, first, name, reason))

    found.sort(key=lambda f: (-f[0], f[1], f[2]))
    failures = []
    for length, rel, first, name, reason in found:
        if length < args.min:
            continue
        mark = ""
        if length > args.limit:
            mark = "  (reason given)" if reason else "  (NO REASON)"
            if not reason:
                failures.append((length, rel, first, name))
        print("%5d  %s:%d  %s%s" % (length, rel, first, name, mark))
    print()
    print("functions scanned: %d" % len(found))
    for lo, hi in BANDS:
        count = sum(1 for f in found if f[0] >= lo and (hi is None or f[0] <= hi))
        label = "%d-%d" % (lo, hi) if hi is not None else "%d+" % lo
        print("%-8s lines: %d" % (label, count))
    if args.check:
        if failures:
            print()
            for length, rel, first, name in failures:
                print('%s:%d: %s is %d lines (over %d) with no "%s ..." comment above it' %
                      (rel, first, name, length, args.limit, REASON), file=sys.stderr)
            return 1
        print('check: every function over %d lines says "%s ..." above it' % (args.limit, REASON))
    return 0


if __name__ == "__main__":
    sys.exit(main())
