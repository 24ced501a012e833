"""Compiling kernels ahead of need: background compiles behind exact stand-ins, and the
warm-up of ``python -m flexarray warm``.

Background compiles
    A kernel compiles on its first call with a new specialization (0.3-6 s, the FFT's the
    longest); a warm disk cache loads it in ~3 ms. A driver whose call can be computed to
    the same bits another way (NumPy's argmax, float16 through NumPy's float32 ufuncs, a
    NumPy stable sort; the thread pool's helpers, which block instead of polling) asks
    :func:`flexarray._kernels.ready` first; when the specialization is neither in memory nor in the disk cache, the request goes to one background process
    per Python process (``python -m flexarray warm --serve``), which compiles it
    into the disk cache while the stand-in serves the calls; a later call finds it there
    (checked at most every ``RECHECK_SECONDS``) and runs the kernel from then on. The
    result never depends on which ran: each stand-in is tested bit for bit against its
    kernel.

    The process starts only on such a call, never on import; it runs at a lower priority
    (nice 5), compiles the specializations asked for (and, for a kernel of a family in
    ``FAMILIES``, then the rest of its family in that dtype), finishes those already asked for
    when its parent exits (so the next process finds them), then ends, and ends after
    ``IDLE_SECONDS`` without requests. ``FLEXARRAY_BACKGROUND_COMPILE=0`` turns it off
    (calls then compile on the caller's thread, as kernels without a stand-in always do);
    under pytest (``PYTEST_CURRENT_TEST`` set) it is off unless that variable says ``1``,
    so tests run the kernels themselves. A forked child starts its own process if it needs
    one (it closes its copy of the parent's pipe).

Warm-up
    :func:`warm` runs recipes (``flexarray._warmup.RECIPES``: small calls through the
    public functions, which live above this layer) that compile every kernel for every
    dtype and mode it serves, into the disk cache (``flexarray._kernels.cache_dir()``), in
    ``jobs`` processes; ``python -m flexarray warm`` shows its progress.
"""
import atexit
import base64
import os
import pickle
import subprocess
import sys
import threading
import time

import numpy as np

ENV = "FLEXARRAY_BACKGROUND_COMPILE"
RECHECK_SECONDS = 0.05   # between probes of the disk cache for one pending specialization
IDLE_SECONDS = 30.0      # the background process ends after this long without requests
AFTER_SECONDS = 60.0     # a family's recipe waits at most this long for its parent's compile
NICE = 5

_lock = threading.Lock()
_probed = {}       # (dispatcher, signature) -> time of the last probe of the disk cache
_asked = set()     # (dispatcher, signature) sent to this process's background process
_asks = {}         # (dispatcher, signature) -> times asked
_proc = None       # that process (subprocess.Popen)


def enabled() -> bool:
    """Whether calls with a stand-in hand their compiles to the background process."""
    v = os.environ.get(ENV)
    if v is not None:
        return v.strip().lower() not in ("0", "false", "no", "off", "")
    return "PYTEST_CURRENT_TEST" not in os.environ


def signature(disp, args):
    """The Numba argument types of ``disp(*args)``: the specialization the call needs."""
    return tuple(disp.typeof_pyval(a) for a in args)


def load(disp, sig) -> bool:
    """Whether ``sig`` of ``disp`` is compiled in this process, loading it from the disk
    cache when it is there (Numba's own steps in ``Dispatcher.compile``, without the
    compile)."""
    if sig in disp.overloads:
        return True
    if not cached(disp, sig):
        return False
    from numba.core.compiler_lock import global_compiler_lock
    with global_compiler_lock:
        if sig in disp.overloads:
            return True
        cres = disp._cache.load_overload(sig, disp.targetctx)
        if cres is None:
            return False
        if not cres.objectmode:
            disp.targetctx.insert_user_function(cres.entry_point, cres.fndesc,
                                                [cres.library])
        disp.add_overload(cres)
    return True


def cached(disp, sig) -> bool:
    """Whether the disk cache's index lists ``sig`` of ``disp`` for this CPU and Numba,
    read without loading anything (loading sets up Numba's target, ~0.4 s the first time
    in a process, which a call served by its stand-in need not pay)."""
    impl = disp._cache
    cache_file = getattr(impl, "_cache_file", None)
    if cache_file is None:
        return False
    if not os.path.exists(cache_file._index_path):
        return False
    key = impl._index_key(sig, disp.targetctx.codegen())
    return key in cache_file._load_index()


MAX_ASKS = 2       # a specialization the background process failed this often compiles here
_broken = False    # set when the machinery failed here (a Numba without the internals used)


def available(disp, args) -> bool:
    """``ready``'s slow path: True when the call runs without compiling (or compiles on
    this thread because background compiles are off, failed, or failed for it); else asks
    for it and says False."""
    global _broken
    sig = signature(disp, args)
    if sig in disp.overloads or _broken or not enabled():
        return True
    now = time.monotonic()
    with _lock:
        last = _probed.get((disp, sig))
        if last is not None and now - last < RECHECK_SECONDS:
            return False
        _probed[(disp, sig)] = now
    try:
        if load(disp, sig):
            return True
        if not request(disp, sig):
            return True
        _ask_family(disp, sig)
        return False
    except Exception:       # (Numba's cache internals changed, no interpreter to start...)
        _broken = True
        return True


def _in_module(disp):
    try:
        _name_in_module(disp)
        return True
    except (LookupError, KeyError):
        return False


def _name_in_module(disp):
    mod = sys.modules[disp.py_func.__module__]
    for name, v in vars(mod).items():
        if v is disp:
            return mod.__name__, name
    raise LookupError(f"kernel {disp.py_func.__qualname__} is not a module attribute")


def _encode(job):
    return base64.b64encode(pickle.dumps(job)) + b"\n"


def _spawn(jobs_out=False, extra_env=None):
    from flexarray._kernels import cache_dir
    env = dict(os.environ)
    env[ENV] = "0"
    env["FLEXARRAY_KERNEL_CACHE_DIR"] = cache_dir()
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)   # this process's imports
    env.update(extra_env or {})
    return subprocess.Popen(
        [sys.executable, "-m", "flexarray", "warm", "--serve"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE if jobs_out else subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, env=env, close_fds=True, start_new_session=not jobs_out)


def request(disp, sig) -> bool:
    """Ask this process's background process to compile ``sig`` of ``disp``; False when it
    was asked ``MAX_ASKS`` times already (then the caller compiles it)."""
    global _proc
    with _lock:
        if (disp, sig) in _asked:
            if _proc is not None and _proc.poll() is None:
                return True
            _asked.clear()      # it ended (idle, or failed): ask a new one
        n = _asks.get((disp, sig), 0)
        if n >= MAX_ASKS:
            return False
        _asks[(disp, sig)] = n + 1
        line = _encode(("sig",) + _name_in_module(disp) + (sig,))
        for _ in range(2):
            if _proc is None or _proc.poll() is not None:
                _proc = _spawn()
                _asked.clear()
            try:
                _proc.stdin.write(line)
                _proc.stdin.flush()
                _asked.add((disp, sig))
                return True
            except OSError:
                _proc = None
        return False


def _close():
    """At exit: end the background process's input (it finishes what it was asked)."""
    p = _proc
    if p is not None and p.stdin is not None:
        try:
            p.stdin.close()
        except OSError:
            pass


def _after_fork():
    global _proc
    if _proc is not None and _proc.stdin is not None:
        try:
            _proc.stdin.close()     # the child's copy of the parent's pipe
        except OSError:
            pass
    _proc = None
    _asked.clear()
    _asks.clear()
    _probed.clear()
    _families_asked.clear()


atexit.register(_close)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


# ---------------------------------------------------------------------------------- the
# background process: ``python -m flexarray warm --serve`` reads jobs, one
# base64 pickle a line: ("sig", module, name, signature), or ("recipe", name, dtypes or
# None, None or (module, name, signature) to wait for); it prints
# "done <kind> <name> <seconds>" (or "failed ...") after each.

def _run_job(job, recipes):
    import importlib
    if job[0] == "sig":
        _, modname, name, sig = job
        disp = getattr(importlib.import_module(modname), name)
        disp.compile(sig)
        return name
    _, name, only, after = job
    if after is not None:       # the kernel its parent is compiling: wait for it (<= 60 s)
        modname, attr, sig = after
        disp = getattr(importlib.import_module(modname), attr)
        t = time.monotonic()
        while not cached(disp, sig) and time.monotonic() - t < AFTER_SECONDS:
            time.sleep(0.1)
    recipes[name](only)
    return name


def serve(recipes):
    """The background process's loop (``python -m flexarray warm --serve``): jobs from
    standard input until its end or ``IDLE_SECONDS`` without one, the kernels asked for
    (``sig``) before the families' recipes waiting with them, so that a caller's stand-in
    serves no longer than its own kernel takes; ``recipes``: name -> function(dtypes or
    None) (``flexarray._warmup.RECIPES``)."""
    import queue
    try:
        os.nice(0 if os.environ.get("FLEXARRAY_WARM_NICE") == "0" else NICE)
    except (AttributeError, OSError):
        pass
    q = queue.Queue()

    def reader():
        for line in sys.stdin.buffer:
            if line.strip():
                q.put(pickle.loads(base64.b64decode(line)))
        q.put(None)

    threading.Thread(target=reader, daemon=True).start()
    pending = []        # jobs read, not run yet: a caller's kernels before whole families
    ended = False
    while True:
        if not pending and not ended:
            try:
                pending.append(q.get(timeout=IDLE_SECONDS))
            except queue.Empty:
                return
        while not ended:
            try:
                pending.append(q.get_nowait())
            except queue.Empty:
                break
        if None in pending:
            pending.remove(None)
            ended = True
        if not pending:
            return
        job = next((j for j in pending if j[0] == "sig"), pending[0])
        pending.remove(job)
        t = time.perf_counter()
        try:
            name = _run_job(job, recipes)
            status = "done"
        except Exception as e:      # a failed compile is the caller's to see, inline
            name, status = f"{job[:3]!r}: {e!r}".replace("\n", " "), "failed"
        print(f"{status} {job[0]} {name} {time.perf_counter() - t:.2f}", flush=True)


#: kernel modules whose other specializations of a dtype are compiled in the background when
#: one of them compiles on a caller's thread or is asked for by a stand-in: their recipe
FAMILIES = {"flexarray._kernels.fft.rfft": "fft", "flexarray._kernels.nn.conv": "conv",
            "flexarray._kernels.nn.attention": "attention", "flexarray._kernels.nn.pool": "pool",
            "flexarray._kernels.reductions.reduce": "reduce"}
_families_asked = set()


def request_family(name, dtype, trigger=None):
    """Ask the background process to run recipe ``name`` for ``dtype`` (once a process),
    after the kernel ``trigger`` ((dispatcher, signature): the one compiling here) is in
    the disk cache, so that it is not compiled twice."""
    global _proc
    with _lock:
        if (name, dtype) in _families_asked:
            return
        _families_asked.add((name, dtype))
        after = None if trigger is None else _name_in_module(trigger[0]) + (trigger[1],)
        line = _encode(("recipe", name, (dtype,), after))
        for _ in range(2):
            if _proc is None or _proc.poll() is not None:
                _proc = _spawn()
                _asked.clear()
            try:
                _proc.stdin.write(line)
                _proc.stdin.flush()
                return
            except OSError:
                _proc = None


def _ask_family(disp, sig):
    """The rest of ``disp``'s family (``FAMILIES``) for the dtype of its first array
    argument in ``sig``, in the background, after ``sig`` itself."""
    name = FAMILIES.get(getattr(disp.py_func, "__module__", ""))
    if name is None:
        return
    from numba import types
    from numba.np.numpy_support import as_dtype
    arr = next((a for a in sig if isinstance(a, types.Array)), None)
    if arr is not None:
        request_family(name, as_dtype(arr.dtype), (disp, sig) if _in_module(disp) else None)


def _on_compile(ev):
    """On a compile of a family's kernel (``FAMILIES``) on any thread of this process: the
    rest of the family for the kernel's first array argument's dtype, in the background
    (as when a stand-in's kernel is asked for: :func:`available`)."""
    global _broken
    if _broken or not enabled():
        return
    try:
        _ask_family(ev.data["dispatcher"], tuple(ev.data["args"]))
    except Exception:
        _broken = True


def listen():
    """Register :func:`_on_compile` with Numba's event API (once a process)."""
    from numba.core import event
    if getattr(listen, "done", False):
        return
    listen.done = True

    class Listener(event.Listener):
        def on_start(self, ev):
            _on_compile(ev)

        def on_end(self, ev):
            pass

    event.register("numba:compile", Listener())


def uncompiled():
    """The kernels no specialization of which is compiled in this process (helpers that
    Numba inlines into their callers aside)."""
    from flexarray._kernels import KERNELS
    return [d for d in KERNELS
            if not d.overloads and d.targetoptions.get("inline", "never") == "never"]


def warm(names, jobs=1, progress=None):
    """Run the recipes ``names`` (of ``flexarray._warmup.RECIPES``) in ``jobs`` processes,
    compiling their kernels into the disk cache; ``progress(done, total, name, seconds)``
    after each. Returns the failures as (name, message)."""
    names = list(names)
    pending = list(names)
    procs = []
    failed = []
    done = 0
    jobs = max(1, min(jobs, len(names)))
    for _ in range(jobs):
        procs.append(_spawn(jobs_out=True, extra_env={"FLEXARRAY_WARM_NICE": "0"}))

    def feed(p):
        if pending:
            p.stdin.write(_encode(("recipe", pending.pop(0), None, None)))
            p.stdin.flush()
            return True
        p.stdin.close()
        return False

    live = [p for p in procs if feed(p)]
    import selectors
    sel = selectors.DefaultSelector()
    for p in live:
        sel.register(p.stdout, selectors.EVENT_READ, p)
    while live:
        for key, _ in sel.select():
            p = key.data
            line = p.stdout.readline().decode()
            if not line:
                sel.unregister(p.stdout)
                live.remove(p)
                continue
            status, _, name, secs = line.split(" ", 3) if line.startswith("done") else (
                "failed", "", line[7:].strip(), "0")
            done += 1
            if status != "done":
                failed.append((name, line.strip()))
            if progress is not None:
                progress(done, len(names), name, float(secs) if status == "done" else 0.0)
            if not feed(p):
                pass
    for p in procs:
        p.wait()
    return failed


