"""The Bash kernel of the emulated code interpreter: one process per
context, imitating the template's bash_kernel as the code interpreter's
server passes it on.

Requests come on stdin, one JSON object a line: {"code": ..., "env_vars":
...}. Events leave on file descriptor 3, one JSON object a line, as the
Python driver's do.

What it imitates: one bash lives as long as the context, so variables,
functions, aliases and the working directory live on from cell to cell;
each cell is sourced from a file in it, so that whatever the code is (a
heredoc, a line without its end, a syntax error) it cannot run into the
next. Its stdout and stderr come as stdout, as bash_kernel's terminal
merges them; a cell whose last command fails is an error with no name, its
exit status as the value and no traceback, as bash_kernel reports it. There
is no main result. env_vars are exported for the cell, then put back.
Standard library only.
"""

import codecs
import json
import os
import re
import secrets
import select
import shlex
import subprocess
import sys
import tempfile

EVENTS = os.dup(3)
os.close(3)
REQUESTS = os.fdopen(os.dup(0), "rb")
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.close(_null)


def send(event):
    data = (json.dumps(event) + "\n").encode("utf-8", "replace")
    view = memoryview(data)
    while view:
        view = view[os.write(EVENTS, view):]


# The cells' bash: its stdin is this driver's commands, its stdout and
# stderr one pipe. It gets no stdin of its own, as a cell's command waiting
# for input would hang the context (bash_kernel answers input requests with
# nothing too).
MARK = "\x1babx-%s" % secrets.token_hex(8)
shell = subprocess.Popen(
    ["bash", "--noprofile", "--norc"],
    stdin=subprocess.PIPE,
    stdout=subprocess.PIPE,
    stderr=subprocess.STDOUT,
    bufsize=0,
)
CELLS = tempfile.mkdtemp(prefix="abx-bash-")


def command(line):
    shell.stdin.write((line + "\n").encode("utf-8"))
    shell.stdin.flush()


def run(code):
    """Sources the cell and streams its output; returns its exit status,
    None when bash itself went."""
    path = os.path.join(CELLS, "cell.sh")
    with open(path, "w", encoding="utf-8") as f:
        f.write(code)
        if not code.endswith("\n"):
            f.write("\n")
    command("source %s </dev/null; printf '%%s %%d\\n' %s $?" % (shlex.quote(path), shlex.quote(MARK)))
    mark = MARK.encode("utf-8")
    text = codecs.getincrementaldecoder("utf-8")("replace")
    held = b""

    def out(data, final=False):
        chunk = text.decode(data, final)
        if chunk:
            send({"type": "stdout", "text": chunk})

    while True:
        select.select([shell.stdout], [], [])
        chunk = os.read(shell.stdout.fileno(), 65536)
        if not chunk:
            out(held, True)
            return None
        held += chunk
        at = held.find(mark)
        if at >= 0:
            end = held.find(b"\n", at)
            if end < 0:
                continue  # the status is still coming
            out(held[:at], True)
            return int(held[at + len(mark):end].strip() or b"1")
        # What may be the start of the mark (it starts with ESC) is held
        # back; the rest goes out.
        esc = held.rfind(b"\x1b")
        cut = esc if esc >= 0 and mark.startswith(held[esc:]) else len(held)
        out(held[:cut])
        held = held[cut:]


NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def execute(request, count):
    send({"type": "number_of_executions", "execution_count": count})
    env = request.get("env_vars") or {}
    bad = [key for key in env if not NAME.match(key)]
    if bad:
        send({"type": "error", "name": "", "value": "invalid variable name: %s" % bad[0], "traceback": ""})
        send({"type": "end_of_execution"})
        return
    for key, value in env.items():
        command("export %s=%s" % (key, shlex.quote(str(value))))
    status = run(request.get("code") or "")
    for key in env:
        if key in os.environ:
            command("export %s=%s" % (key, shlex.quote(os.environ[key])))
        else:
            command("unset %s" % key)
    if status is None:
        send({"type": "error", "name": "", "value": "bash exited", "traceback": ""})
        sys.exit(0)
    if status:
        send({"type": "error", "name": "", "value": str(status), "traceback": ""})
    send({"type": "end_of_execution"})


def serve():
    send({"type": "ready"})
    count = 0
    while True:
        line = REQUESTS.readline()
        if not line:
            return
        count += 1
        try:
            request = json.loads(line)
        except ValueError:
            continue
        execute(request, count)


serve()
