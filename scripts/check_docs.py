#!/usr/bin/env python3
"""Runs every command shown in the README and docs/ and checks its output.

    check_docs.py --bin DIR [--bin DIR2] [--file F.md ...] [--list]

The convention (docs/README.md, "Examples are tested"):

  * A fenced block marked ``console`` is an example. Each line starting with ``$ ``
    is a command; the lines after it, up to the next ``$ `` line or the end of the
    block, are its expected output (stdout and stderr together). A command may go on
    over several lines ending in a backslash.
  * The commands of one block run one after another with bash, in one fresh empty
    folder (so a block that needs tables generates them first), with DIR (where the
    built ``mancala-tb`` is) first on PATH. Every command must exit with status 0;
    a failure is shown by writing it, e.g. ``mancala-tb moves nim || echo "exit $?"``.
  * A block that runs ``mancala-tb-mpi`` is skipped (and says so) when that program
    is not built (``MANCALA_MPI=OFF``). MPI runs may start as root.
  * In an expected line, ``[...]`` matches any text within that line (timings); a
    line that is exactly ``...`` matches any number of lines (also none). Trailing
    spaces are ignored.
  * A block whose opening fence names a file after the language
    (```` ```c docs/examples/probe_c.c ````) must hold exactly that file's text.
  * A block of shell commands that is not run (``sh``, ``bash``, ``shell``) must say
    so on its first line, visibly: ``# not run: REASON``. An ``sh`` block without it
    is an error, so that no command is shown untested by accident.

Exit status 0 when every example matches, 1 otherwise (each mismatch is printed
with its file, line and a diff).
"""
import argparse
import difflib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHELL_LANGS = {"sh", "bash", "shell"}
# Timings and file sizes (which change with the machine and the file format) are
# written as wildcards by --update.
TIMING = re.compile(r"\b\d+\.\d+ s\b")
SIZES = re.compile(r"\b\d+(\.\d+)? (B|KiB|MiB|GiB)\b|\b\d+\.\d+ bytes/position")
NOT_RUN = re.compile(r"^\s*#\s*not run:\s*\S")


def markdown_files():
    files = [ROOT / "README.md"]
    files += sorted((ROOT / "docs").rglob("*.md"))
    return files


def blocks(path):
    """Yields (line number, language, lines, marked not-run) per fenced block."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(```+|~~~+)\s*([\w+-]*)\s*(\S*)", lines[i])
        if not m:
            i += 1
            continue
        fence, lang, source, start = m.group(2), m.group(3).lower(), m.group(4), i
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i])
            i += 1
        marked = bool(body) and NOT_RUN.search(body[0]) is not None
        yield start + 1, lang, body, marked, source
        i += 1


def commands(body, first_line):
    """Splits a console block into (line number, command, expected lines)."""
    out = []
    k = 0
    while k < len(body):
        line = body[k]
        if not line.startswith("$ "):
            raise ValueError(f"line {first_line + k}: console block text before its first '$ ' command")
        number = first_line + k
        cmd = line[2:]
        while cmd.endswith("\\") and k + 1 < len(body):
            k += 1
            cmd = cmd + "\n" + body[k]  # bash reads the backslash-newline as one line
        k += 1
        expected = []
        while k < len(body) and not body[k].startswith("$ "):
            expected.append(body[k])
            k += 1
        out.append((number, cmd, expected))
    return out


def line_matches(pattern, text):
    if "[...]" not in pattern:
        return pattern == text
    parts = [re.escape(p) for p in pattern.split("[...]")]
    return re.fullmatch(".*".join(parts), text) is not None


def output_matches(expected, actual):
    """Expected lines with '...' lines (any number of lines) and '[...]' (any text)."""
    if not expected:
        return not actual
    head = expected[0]
    if head == "...":
        return any(output_matches(expected[1:], actual[j:]) for j in range(len(actual) + 1))
    return bool(actual) and line_matches(head, actual[0]) and output_matches(expected[1:], actual[1:])


def run_block(path, first_line, cmds, env):
    failures = []
    with tempfile.TemporaryDirectory(prefix="docs-example-") as work:
        for number, cmd, expected in cmds:
            r = subprocess.run(["bash", "-c", "set -o pipefail\n" + cmd], cwd=work, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
            actual = [l.rstrip() for l in r.stdout.splitlines()]
            want = [l.rstrip() for l in expected]
            while want and want[-1] == "":
                want.pop()
            while actual and actual[-1] == "":
                actual.pop()
            where = f"{path.relative_to(ROOT)}:{number}"
            if r.returncode != 0:
                failures.append(f"{where}: '{cmd}' exited with status {r.returncode}\n" + "\n".join(actual))
                break
            if not output_matches(want, actual):
                diff = "\n".join(difflib.unified_diff(want, actual, "as documented", "as printed", lineterm=""))
                failures.append(f"{where}: the output of '{cmd}' differs\n{diff}")
    return failures


def wildcards(line):
    line = TIMING.sub("[...] s", line)
    return SIZES.sub(lambda m: "[...] bytes/position" if "position" in m.group(0) else "[...]", line)


def update(path, env):
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    starts = {first: (lang, body) for first, lang, body, _, _ in blocks(path)}
    i = 0
    while i < len(lines):
        out.append(lines[i])
        if i + 1 in starts and starts[i + 1][0] == "console":
            body = starts[i + 1][1]
            cmds = commands(body, i + 2)
            with tempfile.TemporaryDirectory(prefix="docs-example-") as work:
                for _, cmd, _ in cmds:
                    r = subprocess.run(["bash", "-c", "set -o pipefail\n" + cmd], cwd=work, env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
                    out.append("$ " + cmd)
                    out += [wildcards(l.rstrip()) for l in r.stdout.rstrip("\n").splitlines()]
            i += len(body) + 1
            continue
        i += 1
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def broken_links(files):
    """Relative links of the pages ([text](path) and ![alt](path)) must name existing files."""
    out = []
    for path in files:
        in_block = False
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.match(r"^\s*(```|~~~)", line):
                in_block = not in_block
            if in_block:
                continue
            for target in re.findall(r"\]\(([^)\s]+)\)", line):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue
                if not (path.parent / target.split("#")[0]).exists():
                    out.append(f"{path.relative_to(ROOT)}:{number}: the link '{target}' names no file")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True, action="append", help="folder holding the built mancala-tb (repeatable)")
    ap.add_argument("--pythonpath", action="append", default=[],
                    help="folder put on PYTHONPATH (the built mancala_tb module; repeatable)")
    ap.add_argument("--file", action="append", help="check only these Markdown files")
    ap.add_argument("--list", action="store_true", help="list the examples without running them")
    ap.add_argument("--update", action="store_true",
                    help="rewrite the expected output of the console blocks of the --file pages with what the "
                         "commands print now (for writing a page; review the diff, wildcards are lost)")
    args = ap.parse_args()
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(pathlib.Path(b).resolve()) for b in args.bin] + [env.get("PATH", "")])
    env["LC_ALL"] = "C"
    if args.pythonpath:
        env["PYTHONPATH"] = os.pathsep.join([str(pathlib.Path(p).resolve()) for p in args.pythonpath] +
                                            ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    # mpirun examples (docs/cluster.md) run as root in CI and on a 2-core machine.
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_btl_vader_single_copy_mechanism="none")
    have_mpi = shutil.which("mancala-tb-mpi", path=env["PATH"]) is not None
    files = [pathlib.Path(f).resolve() for f in args.file] if args.file else markdown_files()
    if args.update:
        if not args.file:
            ap.error("--update needs --file")
        for path in files:
            update(path, env)
        return 0
    failures, ran = [], 0
    for path in files:
        for first_line, lang, body, marked, source in blocks(path):
            where = f"{path.relative_to(ROOT)}:{first_line}"
            if source:
                src = ROOT / source
                if not src.is_file():
                    failures.append(f"{where}: the block names '{source}', which does not exist")
                elif src.read_text(encoding="utf-8").rstrip("\n").splitlines() != body:
                    failures.append(f"{where}: the block differs from '{source}' (copy the file into the page)")
            if lang in SHELL_LANGS and not marked:
                failures.append(f"{where}: a '{lang}' block whose first line is not '# not run: REASON': "
                                "make it a tested 'console' block or say why it is not run")
            if lang != "console":
                continue
            try:
                cmds = commands(body, first_line + 1)
            except ValueError as e:
                failures.append(f"{path.relative_to(ROOT)}: {e}")
                continue
            if args.list:
                for number, cmd, _ in cmds:
                    print(f"{path.relative_to(ROOT)}:{number}: {cmd}")
                continue
            if not have_mpi and any("mancala-tb-mpi" in cmd for _, cmd, _ in cmds):
                print(f"{where}: skipped (mancala-tb-mpi is not built)")
                continue
            ran += len(cmds)
            failures += run_block(path, first_line + 1, cmds, env)
    failures += broken_links(files)
    for f in failures:
        print("FAIL " + f + "\n", file=sys.stderr)
    if not args.list:
        print(f"{ran} documented commands run, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
