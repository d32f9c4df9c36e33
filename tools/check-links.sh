#!/usr/bin/env bash
# Checks the links of the documentation: every relative link and image in README.md and
# docs/**/*.md must name a file or folder that exists, every #anchor a heading of its page (by
# GitHub's heading slugs), and no markdown file may link outside the repository by a relative
# path (a reader who clones bfv has nothing there). Prints each broken link as
# `file:line: link (why)` and exits 1; web links (http, https, mailto) are not fetched.
#
#   tools/check-links.sh               check this repository
#   tools/check-links.sh ROOT          check the markdown of another folder (README.md, docs/)
#   tools/check-links.sh --self-test   check that broken links in a made-up folder are caught
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || { echo "check-links: python3 is missing" >&2; exit 1; }
exec python3 - "$root" "$@" <<'PYTHON'
import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata

FENCE = re.compile(r"^\s{0,3}(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
# The target of an inline link or image; matched from the "](" on, as its text may start on an
# earlier line.
INLINE_LINK = re.compile(r"\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.IGNORECASE)
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
WEB = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def markdown_lines(path):
    """Yields (line number, text) of the lines outside fenced code blocks."""
    in_fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fence = FENCE.match(line)
            if fence:
                if in_fence is None:
                    in_fence = fence.group(1)
                elif fence.group(1) == in_fence:
                    in_fence = None
                continue
            if in_fence is None and not line.startswith("    "):
                yield number, line.rstrip("\n")


def heading_text(raw):
    """The text GitHub renders for a heading: code spans, links and emphasis marks removed."""
    text = CODE_SPAN.sub(lambda m: m.group(2).strip(), raw)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    return text.replace("*", "")


def slug(text):
    """GitHub's anchor of a heading: lower case, only letters, digits, '_', '-' and spaces kept,
    spaces turned into '-'."""
    kept = []
    for ch in text.strip().lower():
        category = unicodedata.category(ch)
        if ch in "-_" or category[0] in "LN" or category == "Mn":
            kept.append(ch)
        elif ch == " ":
            kept.append("-")
    return "".join(kept)


@functools.cache
def anchors_of(path):
    """Every anchor a markdown file offers: its headings' slugs (repeats get -1, -2, ...) and
    explicit <a name> / <a id> anchors."""
    found, counts = set(), {}
    for _, line in markdown_lines(path):
        found.update(HTML_ANCHOR.findall(line))
        heading = HEADING.match(line)
        if not heading:
            continue
        base = slug(heading_text(heading.group(2)))
        n = counts.get(base, 0)
        counts[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def links_of(line):
    """The link targets of one line, outside code spans."""
    without_code = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
    targets = [m.group(1) for m in INLINE_LINK.finditer(without_code)]
    definition = REFERENCE_DEF.match(without_code)
    if definition:
        targets.append(definition.group(1))
    return [t[1:-1] if t.startswith("<") and t.endswith(">") else t for t in targets]


def check_link(root, page, target):
    """Why the link `target` on `page` is broken, or None when it resolves."""
    if WEB.match(target):
        return None
    path_part, _, anchor = target.partition("#")
    if path_part.startswith("/"):
        resolved = os.path.normpath(os.path.join(root, path_part.lstrip("/")))
    elif path_part:
        resolved = os.path.normpath(os.path.join(os.path.dirname(page), path_part))
    else:
        resolved = page
    if os.path.commonpath([root, resolved]) != root:
        return "points outside the repository"
    if not os.path.exists(resolved):
        return "no such file"
    if anchor and resolved.endswith(".md") and anchor not in anchors_of(resolved):
        return f"no heading with anchor #{anchor} in {os.path.relpath(resolved, root)}"
    return None


def pages_to_check(root):
    """README.md and every markdown file under docs/."""
    pages = [os.path.join(root, "README.md")] if os.path.isfile(os.path.join(root, "README.md")) else []
    for folder, _, files in os.walk(os.path.join(root, "docs")):
        pages += [os.path.join(folder, f) for f in sorted(files) if f.endswith(".md")]
    return pages


def all_markdown(root):
    """Every markdown file of the tree outside build folders and .git."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git" and not d.startswith("build")]
        for f in files:
            if f.endswith(".md"):
                yield os.path.join(folder, f)


def check(root):
    """Prints every broken link under root; returns how many there are."""
    root = os.path.realpath(root)
    broken = []
    pages = set(pages_to_check(root))
    for page in sorted(pages | set(all_markdown(root))):
        for number, line in markdown_lines(page):
            for target in links_of(line):
                why = check_link(root, page, target)
                # Pages outside README.md and docs/ are held only to staying inside the tree.
                if why and (page in pages or why == "points outside the repository"):
                    broken.append(f"{os.path.relpath(page, root)}:{number}: {target} ({why})")
    for line in broken:
        print(line, file=sys.stderr)
    if not pages:
        print(f"check-links: no README.md or docs/*.md under {root}", file=sys.stderr)
        return 1
    if not broken:
        print(f"check-links: {len(pages)} pages, every link resolves")
    return len(broken)


def self_test(script):
    """Runs the check on a made-up folder: good links pass, each kind of broken link is named."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "docs"))
        with open(os.path.join(tmp, "README.md"), "w") as f:
            f.write("# Front page\n\n## Set-up: the `tools/` scripts\n\n"
                    "[guide](docs/guide.md#running-bfv-render) [here](#set-up-the-tools-scripts)\n"
                    "```\n[in code](docs/none.md)\n```\n`[in a span](docs/none.md)` [web](https://x.org/y)\n")
        with open(os.path.join(tmp, "docs", "guide.md"), "w") as f:
            f.write("# Running `bfv render`\n\n[back to the\nfront page](../README.md#front-page)\n")
        good = subprocess.run([script, tmp], capture_output=True, text=True)
        if good.returncode != 0:
            print(f"check-links --self-test: good links refused:\n{good.stderr}", file=sys.stderr)
            return 1
        with open(os.path.join(tmp, "docs", "guide.md"), "a") as f:
            f.write("[gone](missing.md)\n[a bad\nanchor](../README.md#no-such-heading)\n"
                    "[outside](../../elsewhere/x.md)\n")
        bad = subprocess.run([script, tmp], capture_output=True, text=True)
        expected = ["docs/guide.md:5: missing.md (no such file)",
                    "docs/guide.md:7: ../README.md#no-such-heading (no heading",
                    "docs/guide.md:8: ../../elsewhere/x.md (points outside the repository)"]
        missing = [e for e in expected if e not in bad.stderr]
        if bad.returncode == 0 or missing:
            print(f"check-links --self-test: broken links not named: {missing}\n{bad.stderr}",
                  file=sys.stderr)
            return 1
    print("check-links --self-test: good links pass, broken ones are named")
    return 0


def main():
    repo, args = sys.argv[1], sys.argv[2:]
    if args == ["--self-test"]:
        return self_test(os.path.join(repo, "tools", "check-links.sh"))
    if len(args) > 1 or (args and args[0].startswith("-")):
        print("usage: tools/check-links.sh [ROOT | --self-test]", file=sys.stderr)
        return 2
    root = args[0] if args else repo
    if not os.path.isdir(root):
        print(f"check-links: no folder '{root}'", file=sys.stderr)
        return 2
    return 1 if check(root) else 0


sys.exit(main())
PYTHON
