#!/usr/bin/env python3
"""The README's admin section as steps a test can run (boinc_server_e2e.sh).

  readme_blocks.py README OUTDIR      writes the section's blocks in order:
      OUTDIR/NN.sh   a ```sh block, to run as written
      OUTDIR/NN.xml  an ```xml block after "<!-- e2e: FILE ELEMENT -->",
                     that marker as its first line
      OUTDIR/later/NN.sh  a ```sh block after "<!-- e2e: after the batch -->"
  readme_blocks.py --apply BLOCK PROJECT
      adds BLOCK's XML inside the first ELEMENT of PROJECT/FILE, as an admin
      editing the file would: an element with no children that is already
      there (a setting) gets the new value; anything else goes at the end.

Other blocks (plain ``` examples) are not run. Exit 1 with a message when
the section or a marker is not what the test expects."""
import os
import re
import sys

SECTION = "## For project admins"
MARKER = re.compile(r"<!-- e2e: (.*?) -->")


def admin_section(text):
    start = text.find(SECTION)
    if start < 0:
        sys.exit(f"readme_blocks: no '{SECTION}' section")
    end = text.find("\n## ", start + len(SECTION))
    return text[start:end if end >= 0 else len(text)]


def blocks(section):
    """(language, marker or None, body) for each fenced block, in order."""
    lines = section.splitlines()
    marker, i = None, 0
    while i < len(lines):
        line = lines[i].strip()
        m = MARKER.fullmatch(line)
        if m:
            marker = m.group(1)
        elif line.startswith("```"):
            lang, body, i = line[3:].strip(), [], i + 1
            indent = len(lines[i - 1]) - len(lines[i - 1].lstrip())
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i][indent:])
                i += 1
            yield lang, marker, "\n".join(body) + "\n"
            marker = None
        elif line:
            marker = None if not line.startswith("<!--") else marker
        i += 1


def split(readme, outdir):
    os.makedirs(os.path.join(outdir, "later"), exist_ok=True)
    n = 0
    for lang, marker, body in blocks(admin_section(open(readme).read())):
        n += 1
        if lang == "sh":
            sub = "later" if marker == "after the batch" else ""
            if marker not in (None, "after the batch"):
                sys.exit(f"readme_blocks: unknown marker '{marker}' before a sh block")
            with open(os.path.join(outdir, sub, f"{n:02d}.sh"), "w") as f:
                f.write(body)
        elif lang == "xml":
            if not marker or len(marker.split()) != 2:
                sys.exit("readme_blocks: an xml block without '<!-- e2e: FILE ELEMENT -->'")
            with open(os.path.join(outdir, f"{n:02d}.xml"), "w") as f:
                f.write(f"<!-- e2e: {marker} -->\n{body}")


def apply(block_path, project):
    first, body = open(block_path).read().split("\n", 1)
    target, element = MARKER.fullmatch(first).group(1).split()
    path = os.path.join(project, target)
    text = open(path).read()
    m = re.search(rf"<{element}>(.*?)</{element}>", text, re.S)
    if not m:
        sys.exit(f"readme_blocks: {path} has no <{element}>")
    inside = m.group(1)
    for piece in re.finditer(r"<(\w+)>(.*?)</\1>", body, re.S):
        tag, value = piece.group(1), piece.group(2)
        setting = "<" not in value
        old = re.search(rf"<{tag}>([^<]*)</{tag}>", inside, re.S) if setting else None
        if old:
            inside = inside[:old.start(1)] + value + inside[old.end(1):]
        else:
            inside = inside.rstrip() + "\n" + piece.group(0) + "\n"
    text = text[:m.start(1)] + inside + text[m.end(1):]
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--apply":
        apply(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3:
        split(sys.argv[1], sys.argv[2])
    else:
        sys.exit(__doc__)
