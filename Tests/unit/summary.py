"""Where a failed `swift test` run stopped, from its output (Tests/unit/run.sh prints it last):
the tests that started and never ended, what was printed just before a crash, the crashing
thread's frames (written by Tests/CrashFrames) by function and line, and the failures."""
import os
import re
import shutil
import subprocess
import sys

START = re.compile(r"^\S+ (Test|Suite) (.+) started\.$")
END = re.compile(r"^\S+ (Test|Suite) (.+?) (passed|failed|skipped)\b")
CRASH = "*** crash frames: "
FRAME = re.compile(r"^frame (\d+): (\S+) \+(0x[0-9a-f]+)$")
SWIFT = os.environ.get("SWIFT", "swift")


def symbolizer():
    """The toolchain's llvm-symbolizer (it sits beside `swift`), or one on the PATH."""
    swift = shutil.which(SWIFT)
    beside = os.path.join(os.path.dirname(os.path.realpath(swift)), "llvm-symbolizer") if swift else None
    return beside if beside and os.access(beside, os.X_OK) else shutil.which("llvm-symbolizer")


def run(command, stdin=None):
    try:
        return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def symbolized(frames):
    """Each (number, object, offset) as `function at file:line`, Swift names demangled: one
    llvm-symbolizer per object (reading a test binary's debug information takes seconds), each
    address answered in a block of two lines and a blank one."""
    tool = symbolizer()
    described = {}
    for path in dict.fromkeys(path for _, path, _ in frames):
        offsets = [offset for _, p, offset in frames if p == path]
        out = run([tool, "--obj=" + path, "--functions=linkage", "--inlining=false", *offsets]) if tool else ""
        blocks = [block.split("\n") for block in out.strip("\n").split("\n\n")] if out else []
        for offset, block in zip(offsets, blocks):
            if len(block) > 1:
                described[(path, offset)] = f"{block[0]} at {block[1]}"
    lines = [described.get((path, offset), "?") for _, path, offset in frames]
    names = run([SWIFT, "demangle", "--simplified"], "\n".join(lines)).split("\n")
    if len(names) < len(lines):
        names = lines
    return [f"  frame {n}: {name}  ({os.path.basename(path)} +{offset})" for (n, path, offset), name in zip(frames, names)]

with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
    lines = log.read().splitlines()

running = {}
for line in lines:
    if m := START.match(line):
        running[(m[1], m[2])] = None
    elif m := END.match(line):
        running.pop((m[1], m[2]), None)

print("\n==== unit tests failed: summary ====")
unfinished = [f"{kind} {name}" for kind, name in running if name != "run" and not name.startswith("case ")]
if unfinished:
    print("Started and never ended (running when the process stopped):")
    for name in unfinished:
        print("  " + name)

# A runtime's or a library's reason for aborting comes just before the signal ("Simultaneous
# accesses", "free(): invalid pointer", a libmicrohttpd panic).
crash = [n for n, line in enumerate(lines) if line.startswith(CRASH)]
if crash:
    print("The 20 lines before the crash:")
    for line in lines[max(0, crash[0] - 20) : crash[0] + 1]:
        print("  " + line)

frames = [(m[1], m[2], m[3]) for line in lines if (m := FRAME.match(line))]
if frames:
    print("The crashing thread's frames:")
    for line in symbolized(frames):
        print(line)

failures = [line for line in lines if line.startswith("✘") or ": error:" in line or "Fatal error" in line]
if failures:
    print("Failures:")
    for line in failures[-40:]:
        print("  " + line)
