"""The kernel of the emulated code interpreter: one process per context.

Requests come on stdin, one JSON object a line: {"code": ..., "env_vars": ...}.
Events leave on file descriptor 3, one JSON object a line, in the wire shapes
of the code interpreter's /execute stream (the Go side adds timestamps to
stdout and stderr). Keeping them off fd 1 and 2 means user code that writes
there directly (os.write, subprocesses) cannot corrupt them.

What user code writes to fd 1 and 2 directly is captured too: a thread
forwards it as it comes, and whatever is left is read out before the end
of each execution, so nothing written during a cell arrives after it.
Its order relative to print() output is not guaranteed.

What it imitates is an IPython kernel: a namespace that persists, an
execution counter, the value of a trailing expression as the main result,
display() for the others, the display protocol's _repr_*_ methods, and
IPython's coloured tracebacks. Standard library only, Python 3.9 or later.
"""

import ast
import base64
import builtins
import codecs
import importlib.abc
import importlib.util
import inspect
import io
import json
import linecache
import os
import select
import signal
import sys
import threading
import tokenize
import types
import zlib

# Private, non-inheritable copies of the protocol's descriptors; user code
# and its subprocesses get an empty stdin and no fd 3.
EVENTS = os.dup(3)
os.close(3)
REQUESTS = os.fdopen(os.dup(0), "rb")
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.close(_null)

MAIN_THREAD = threading.main_thread()
DRIVER_GLOBALS = globals()


class State:
    """What the SIGINT handler needs to know."""

    running = False  # user code is on the stack: an interrupt may land
    sending = 0  # the main thread is writing an event: wait till it is out
    pending = False  # an interrupt came while sending
    count = 0  # IPython's execution counter


state = State()
send_lock = threading.Lock()


def on_sigint(signum, frame):
    # An interrupt belongs to user code. One that comes while the driver
    # writes an event is raised once the event is out, so that no event
    # is cut in half; one that comes while idle is dropped.
    if not state.running:
        return
    if state.sending:
        state.pending = True
        return
    raise KeyboardInterrupt


signal.signal(signal.SIGINT, on_sigint)


def send(event):
    data = (json.dumps(event, default=str) + "\n").encode("utf-8", "replace")
    main = threading.current_thread() is MAIN_THREAD
    if main:
        state.sending += 1
    try:
        with send_lock:
            view = memoryview(data)
            while view:
                view = view[os.write(EVENTS, view):]
    finally:
        if main:
            state.sending -= 1
    if main and state.pending and state.running and not state.sending:
        state.pending = False
        raise KeyboardInterrupt


class Stream(io.TextIOBase):
    """sys.stdout or sys.stderr: text goes out a line at a time, and
    whatever is buffered goes out before any other event, so that output
    and results keep their order. (IPython batches what comes within
    0.2 s; lines are the nearest thing without a timer thread.)"""

    def __init__(self, name, fd):
        super().__init__()
        self._name = name
        self._fd = fd
        self._buf = []

    @property
    def name(self):
        return "<%s>" % self._name

    @property
    def encoding(self):
        return "utf-8"

    def writable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        # Whatever is written to the real descriptor is forwarded too.
        return self._fd

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not %s" % type(s).__name__)
        if s:
            self._buf.append(s)
            if "\n" in s:
                self.flush()
        return len(s)

    def flush(self):
        if self._buf:
            text, self._buf = "".join(self._buf), []
            send({"type": self._name, "text": text})


STDOUT = Stream("stdout", 1)
STDERR = Stream("stderr", 2)
sys.stdout, sys.stderr = STDOUT, STDERR


class Capture:
    """Pipes in place of fd 1 and 2 (inherited by subprocesses), read by a
    thread, and read out at the end of each execution."""

    def __init__(self):
        self.lock = threading.Lock()
        self.pipes = {}  # read end -> (stream name, decoder)
        for fd, name in ((1, "stdout"), (2, "stderr")):
            r, w = os.pipe()
            os.dup2(w, fd)
            os.close(w)
            os.set_blocking(r, False)
            self.pipes[r] = (name, codecs.getincrementaldecoder("utf-8")("replace"))
        threading.Thread(target=self.loop, name="capture", daemon=True).start()

    def loop(self):
        while self.pipes:
            ready, _, _ = select.select(list(self.pipes), [], [])
            self.drain(ready)

    def drain(self, fds=None):
        with self.lock:
            for fd in list(fds or self.pipes):
                if fd not in self.pipes:
                    continue
                name, decoder = self.pipes[fd]
                chunks = []
                while True:
                    try:
                        data = os.read(fd, 65536)
                    except BlockingIOError:
                        break
                    if not data:
                        del self.pipes[fd]
                        break
                    chunks.append(data)
                text = decoder.decode(b"".join(chunks))
                if text:
                    send({"type": name, "text": text})


CAPTURE = Capture()


def emit(event):
    """Sends an event that is not output, after the output before it."""
    STDOUT.flush()
    STDERR.flush()
    send(event)


# The display protocol.

REPR_METHODS = [
    ("text/html", "_repr_html_"),
    ("text/markdown", "_repr_markdown_"),
    ("image/svg+xml", "_repr_svg_"),
    ("image/png", "_repr_png_"),
    ("image/jpeg", "_repr_jpeg_"),
    ("application/pdf", "_repr_pdf_"),
    ("text/latex", "_repr_latex_"),
    ("application/json", "_repr_json_"),
    ("application/javascript", "_repr_javascript_"),
]
BINARY = ("image/png", "image/jpeg", "application/pdf")
# The code interpreter's Result fields, in its order.
FIELDS = [
    ("text/plain", "text"),
    ("text/html", "html"),
    ("text/markdown", "markdown"),
    ("image/svg+xml", "svg"),
    ("image/png", "png"),
    ("image/jpeg", "jpeg"),
    ("application/pdf", "pdf"),
    ("text/latex", "latex"),
    ("application/json", "json"),
    ("application/javascript", "javascript"),
    ("e2b/data", "data"),
]


def formatter(obj, name):
    # As IPython: classes have no reprs of their own, and an object that
    # claims every attribute (a proxy, a mock) has none either.
    if inspect.isclass(obj):
        return None
    try:
        if getattr(obj, "_ipython_canary_method_should_not_exist_", None) is not None:
            return None
        method = getattr(obj, name, None)
    except Exception:
        return None
    return method if callable(method) else None


def call_formatter(method, *args, **kwargs):
    try:
        value = method(*args, **kwargs)
    except Exception:
        # IPython prints a failing formatter's traceback and goes on.
        import traceback

        traceback.print_exc()
        return None
    if isinstance(value, tuple) and len(value) == 2:
        value = value[0]  # (data, metadata)
    return value


def mimebundle(obj):
    data = {}
    method = formatter(obj, "_repr_mimebundle_")
    if method is not None:
        got = call_formatter(method, include=None, exclude=None)
        if isinstance(got, dict):
            data.update(got)
    for mime, name in REPR_METHODS:
        if mime in data:
            continue
        method = formatter(obj, name)
        if method is not None:
            value = call_formatter(method)
            if value is not None:
                data[mime] = value
    if "image/png" not in data and is_figure(obj):
        data["image/png"] = figure_png(obj)  # as IPython's inline backend formats a Figure
    if "text/plain" not in data:
        data["text/plain"] = repr(obj)
    for mime in BINARY:
        if isinstance(data.get(mime), (bytes, bytearray)):
            data[mime] = base64.b64encode(data[mime]).decode("ascii")
    return data


def result_event(data, main):
    data = dict(data)
    event = {"type": "result"}
    for mime, field in FIELDS:
        value = data.pop(mime, None)
        if field == "text" and value and value[0] in "'\"" and value[-1] == value[0]:
            value = value[1:-1]  # the code interpreter strips one pair of quotes, ' or "
        if value is not None:
            event[field] = value
    event["extra"] = data
    event["is_main_result"] = main
    return event


def display(*objs, **kwargs):
    """Shows objects as IPython's display() does: each is a result that is
    not the main one."""
    for obj in objs:
        emit(result_event(mimebundle(obj), False))


class StdinNotImplementedError(IOError):
    """What ipykernel raises when the frontend takes no input."""


def no_input(prompt=""):
    raise StdinNotImplementedError(
        "raw_input was called, but this frontend does not support input requests."
    )


# matplotlib, as the code interpreter's IPython shows it (its inline
# backend): plt.show() displays every open figure as a PNG result and
# closes it, and so does the end of a cell for the figures still open; a
# Figure as a cell's value is its PNG. The backend is set in this process
# when user code imports matplotlib (not by MPLBACKEND, which its
# subprocesses would inherit without the module), and is this driver's.

INLINE = "abx_inline"
INLINE_BACKEND = "module://" + INLINE


def is_figure(obj):
    cls = type(obj)
    return cls.__name__ == "Figure" and cls.__module__.startswith("matplotlib.")


def figure_png(fig):
    buf = io.BytesIO()
    fig.canvas.print_figure(buf, format="png", bbox_inches="tight")
    return buf.getvalue()


def show_figures(*args, **kwargs):
    """The backend's show(): each open figure displayed, then closed."""
    from matplotlib._pylab_helpers import Gcf

    managers = Gcf.get_all_fig_managers()
    try:
        for manager in managers:
            display(manager.canvas.figure)
    finally:
        for manager in managers:
            Gcf.destroy(manager)


def flush_figures():
    """What the inline backend does as a cell ends."""
    if "matplotlib.pyplot" not in sys.modules:
        return
    import matplotlib

    if matplotlib.rcParams.get("backend") == INLINE_BACKEND:
        show_figures()


class InlineLoader(importlib.abc.Loader):
    """Makes the backend module, from matplotlib's own Agg canvas."""

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        from matplotlib.backend_bases import FigureManagerBase
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        module.FigureCanvas = FigureCanvasAgg
        module.FigureManager = FigureManagerBase
        module.show = show_figures


class AfterLoad(importlib.abc.Loader):
    """A loader that sets the backend once matplotlib is loaded."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        module.rcParams["backend"] = INLINE_BACKEND


class MatplotlibHook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == INLINE:
            return importlib.util.spec_from_loader(name, InlineLoader())
        if name != "matplotlib":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = AfterLoad(spec.loader)
                return spec
        return None


sys.meta_path.insert(0, MatplotlibHook())

builtins.display = display
builtins.input = no_input

# The user's namespace is a fresh __main__, as in IPython, so that pickle
# finds the classes defined in cells.
USER = types.ModuleType("__main__")
USER.__dict__["__builtins__"] = builtins
sys.modules["__main__"] = USER
CELLS = {}  # cell file name -> execution count


# Tracebacks, coloured as IPython's "Neutral" scheme.

RED, GREEN, LGREEN, CYAN, BLUE, NORMAL = (
    "\x1b[0;31m",
    "\x1b[0;32m",
    "\x1b[1;32m",
    "\x1b[0;36m",
    "\x1b[0;34m",
    "\x1b[0m",
)
CONTEXT = 2  # source lines shown before and after the current one


def cell_file(code):
    # ipykernel compiles each cell as a file named after a hash of its code.
    return "/tmp/ipykernel_%d/%d.py" % (os.getpid(), zlib.crc32(code.encode("utf-8")))


def location(filename, lineno):
    if filename in CELLS:
        return "Cell %sIn[%d], line %d%s" % (GREEN, CELLS[filename], lineno, NORMAL)
    return "File %s%s:%d%s" % (GREEN, filename, lineno, NORMAL)


def format_frame(frame, lineno):
    code = frame.f_code
    text = location(code.co_filename, lineno)
    name = getattr(code, "co_qualname", code.co_name)
    if code.co_name != "<module>":
        try:
            args = inspect.getargvalues(frame)
            scope = inspect.formatargvalues(*args, formatvalue=lambda value: "")
        except Exception:
            scope = "(...)"
        text += ", in %s%s%s%s%s" % (CYAN, name, BLUE, scope, NORMAL)
    text += "\n"
    lines = linecache.getlines(code.co_filename, frame.f_globals)
    if not 0 < lineno <= len(lines):
        return text
    before = [n for n in range(1, lineno) if lines[n - 1].strip()][-CONTEXT:]
    after = [n for n in range(lineno + 1, len(lines) + 1) if lines[n - 1].strip()][:CONTEXT]
    for n in before + [lineno] + after:
        source = lines[n - 1].rstrip("\r\n")
        if n == lineno:
            pad = 7 - len(str(n))
            arrow = "-" * (pad - 2) + "> " if pad >= 2 else (">" if pad == 1 else "")
            text += "%s%s%d%s %s\n" % (GREEN, arrow, n, NORMAL, source)
        else:
            text += "%s%7d%s %s\n" % (LGREEN, n, NORMAL, source)
    return text


def format_whole(exc):
    """IPython's parts for one exception: header, frames, last line."""
    name = type(exc).__name__
    parts = [RED + name + NORMAL + "Traceback (most recent call last)".rjust(75 - len(name))]
    tb = exc.__traceback__
    while tb is not None:
        # The driver's own frames are not the user's business.
        if tb.tb_frame.f_globals is not DRIVER_GLOBALS:
            parts.append(format_frame(tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    parts.append("%s%s%s: %s" % (RED, name, NORMAL, exc_str(exc)))
    return parts


def exc_str(exc):
    try:
        return str(exc)
    except Exception:
        return "<unprintable %s object>" % type(exc).__name__


def format_traceback(exc):
    chain, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        chain.append(exc)
        if exc.__cause__ is not None:
            exc = exc.__cause__
        elif exc.__context__ is not None and not exc.__suppress_context__:
            exc = exc.__context__
        else:
            exc = None
    parts = [RED + "-" * 75 + NORMAL]
    for i, exc in enumerate(reversed(chain)):
        if i:
            if exc.__cause__ is chain[len(chain) - i]:
                parts.append("\nThe above exception was the direct cause of the following exception:\n")
            else:
                parts.append("\nDuring handling of the above exception, another exception occurred:\n")
        parts.extend(format_whole(exc))
    return "".join(parts)


def format_syntax_error(exc):
    # IPython shows a cell that does not compile without a stack.
    text = (exc.text or "").rstrip("\r\n")
    stripped = text.lstrip()
    caret = max((exc.offset or 1) - 1 - (len(text) - len(stripped)), 0)
    out = "%s  %s\n" % (CYAN, location(exc.filename or "", exc.lineno or 0))
    if stripped:
        out += "%s    %s%s\n%s    %s^%s\n" % (RED, stripped, NORMAL, NORMAL, " " * caret, NORMAL)
    out += "%s%s%s%s:%s %s\n" % (RED, type(exc).__name__, NORMAL, RED, NORMAL, exc.msg)
    return out


def format_system_exit(exc):
    # IPython does not show a stack for exit() either.
    return "An exception has occurred, use %%tb to see the full traceback.\n%s%s%s%s:%s %s\n" % (
        RED, type(exc).__name__, NORMAL, RED, NORMAL, exc_str(exc))


def error_event(exc, syntax=False):
    if syntax:
        tb = format_syntax_error(exc)
    elif isinstance(exc, SystemExit):
        tb = format_system_exit(exc)
    else:
        tb = format_traceback(exc)
    return {"type": "error", "name": type(exc).__name__, "value": exc_str(exc), "traceback": tb}


# Running cells.


def quiet(code):
    """A trailing semicolon hides the value, as in IPython."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    ignored = (tokenize.COMMENT, tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER,
               tokenize.INDENT, tokenize.DEDENT)
    for tok in reversed(tokens):
        if tok.type not in ignored:
            return tok.type == tokenize.OP and tok.string == ";"
    return False


def run_cell(code, count):
    filename = cell_file(code)
    CELLS[filename] = count
    lines = code.splitlines(True)
    linecache.cache[filename] = (len(code), None, lines, filename)
    try:
        tree = ast.parse(code, filename, "exec")
    except SyntaxError as exc:
        return error_event(exc, syntax=True)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not quiet(code):
        last = ast.Expression(tree.body.pop().value)
    try:
        exec(compile(tree, filename, "exec"), USER.__dict__)
        if last is not None:
            value = eval(compile(last, filename, "eval"), USER.__dict__)
            if value is not None:
                USER.__dict__["_"] = value
                emit(result_event(mimebundle(value), True))
        flush_figures()
        STDOUT.flush()
        STDERR.flush()
    except BaseException as exc:  # KeyboardInterrupt and SystemExit too, as IPython
        state.running = False
        return error_event(exc)
    return None


def execute(request, count):
    env = request.get("env_vars") or {}
    saved = {key: os.environ.get(key) for key in env}
    error = None
    state.running = True
    try:
        send({"type": "number_of_executions", "execution_count": count})
        for key, value in env.items():
            os.environ[key] = str(value)
        error = run_cell(request.get("code") or "", count)
    finally:
        state.running = False
        state.pending = False
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return error


def serve():
    send({"type": "ready"})
    while True:
        try:
            line = REQUESTS.readline()
        except KeyboardInterrupt:
            continue
        if not line:
            return
        state.count += 1
        try:
            error = execute(json.loads(line), state.count)
        except BaseException as exc:  # an interrupt that came as the cell ended
            state.running = False
            error = error_event(exc)
        CAPTURE.drain()
        if error is not None:
            emit(error)
        emit({"type": "end_of_execution"})


serve()
