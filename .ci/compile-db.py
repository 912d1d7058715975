"""What .ci/quality.sh needs from a CMake compile database (compile_commands.json) of core/, ui/ and app/.

  compile-db.py BUILD batches       prints the translation units to run clang-tidy on, one per line: the unity
                                    batches, and the project's sources compiled outside a batch
  compile-db.py BUILD syntax-only   compiles each project source on its own with -fsyntax-only (as many at once as
                                    there are cores), prints the errors, exits 1 if any failed
Generated files (moc output, resources) are left out: they are Qt's, not the project's.
"""
import json
import os
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

PARTS = ("core", "ui", "app")


def entries(build):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        db = json.load(f)
    for e in db:
        path = os.path.abspath(os.path.join(e["directory"], e["file"]))
        rel = os.path.relpath(path, root)
        own = rel.split(os.sep)[0] in PARTS and path.endswith(".cpp")
        batch = os.sep + "Unity" + os.sep + "unity_" in path
        yield e, path, own, batch


def syntax_only(e):
    args = shlex.split(e["command"]) if "command" in e else list(e["arguments"])
    kept, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == "-o":
            skip = True
        elif a != "-c":
            kept.append(a)
    r = subprocess.run(kept + ["-fsyntax-only"], cwd=e["directory"], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("batches", "syntax-only"):
        sys.exit(__doc__)
    build, mode = sys.argv[1], sys.argv[2]
    if mode == "batches":
        for _, path, own, batch in entries(build):
            if batch or own:
                print(path)
        return
    own = [e for e, _, is_own, _ in entries(build) if is_own]
    if not own:
        sys.exit(f"{build}/compile_commands.json: no source of {', '.join(PARTS)} (configured with unity batches?)")
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(syntax_only, own))
    failed = [out for rc, out in results if rc != 0]
    for out in failed:
        print(out, end="")
    print(f"includes: {len(own)} files compiled on their own, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
