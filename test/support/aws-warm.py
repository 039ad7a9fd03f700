"""
A warm start for the real aws CLI in tests (test/support/aws-warm.ts starts it; issue 40 item 4).

The aws CLI (v1, Python) spends about three quarters of every run importing botocore and its own
plugins before it reads its arguments: on the test machine about 0.75 s of CPU out of 1.0 s, and the
suite runs it hundreds of times. This server imports the CLI once, then forks for every run: the
child has every module already loaded and runs the CLI's own `main()` from the start (a fresh
session, fresh configuration, the caller's arguments, environment, working directory and stdin,
stdout and stderr), so what runs is the same code as `aws` with the same inputs, minus the imports.

HOME. awscli and botocore compute paths under `~` when they are imported (the alias file, the history
database, the default kubeconfig of `eks update-kubeconfig`, ~/.aws/models, the assume-role and SSO
caches). The server is started with HOME set to a fresh empty directory of its own (aws-warm.ts), so
its imports never name a real home; each run then moves every value the imported modules hold under
that directory to the same place under the caller's HOME (home_paths below: the directory's name is
unique, so a value under it can only come from `~`). A run reads and writes the caller's ~ exactly as
a cold `aws` would; a value the server cannot move (inside a tuple, say) is reported on stderr at start,
and points into the server's own empty HOME, never into a real one.

The caller is a small client (CLIENT below, written next to the socket as `aws`): it passes its
argument vector, environment, working directory, the encodings a fresh Python would give its standard
streams, and its three standard file descriptors over the Unix socket (SCM_RIGHTS), and ends as the
run did (its exit code, or killed by the same signal). When the warm run could differ from a cold one
(a PYTHON* variable other than the server's, a user site directory in the caller's HOME, a standard fd
closed) or the server is not there, the client execs the real aws instead.

Processes. Each run leads a process group of its own. SIGTERM, SIGINT, SIGHUP and SIGQUIT that reach the
client are forwarded to that group (what a signal to a cold aws's group would reach); when the client
goes away before the run ends (SIGKILL, a closed socket), the group is killed: the run, and whatever it
started (a credential_process, a `!` alias), never outlives its caller.

    python aws-warm.py SOCKET CLIENT AWS   writes the client to CLIENT (falling back to the script AWS),
                                           prints "ready" on stdout once it accepts; ends when stdin closes
"""
import gc
import importlib
import io
import json
import locale
import random
import os
import selectors
import signal
import site
import socket
import struct
import sys
import traceback
import types

import awscli
import awscli.clidriver


def list_package_services_once():
    """
    Every run lists the services of botocore's and the CLI's data directories again (a directory scan of
    every service, four times: about a quarter of a warm run's CPU on the test machine), and that listing
    can only change if the installed packages do. Here it is made once, before any fork, and a run whose
    search path holds no other directory (its ~/.aws/models absent, no AWS_DATA_PATH of its own) gets a
    copy; any other run lists as always. The listing is botocore's own function, called once per type.
    """
    import botocore
    import botocore.loaders as loaders

    package_dirs = {os.path.normpath(os.path.join(botocore.BOTOCORE_ROOT, 'data')), os.path.normpath(os.path.join(os.path.dirname(awscli.__file__), 'data'))}
    plain = loaders.Loader.list_available_services
    listed = {}

    def list_available_services(self, type_name):
        dirs = tuple(os.path.normpath(p) for p in self.search_paths if os.path.isdir(p))
        if not set(dirs) <= package_dirs:
            return plain(self, type_name)
        if (dirs, type_name) not in listed:
            listed[dirs, type_name] = tuple(plain(self, type_name))
        return list(listed[dirs, type_name])

    loaders.Loader.list_available_services = loaders.instance_cache(list_available_services)
    loader = loaders.create_loader(os.environ.get('AWS_DATA_PATH'))  # the search path a run has (awscli set AWS_DATA_PATH at import)
    for type_name in ('service-2', 'paginators-1', 'waiters-2', 'endpoint-rule-set-1'):  # what a run lists
        loader.list_available_services(type_name)


def accepts_kwargs_by_code():
    """
    botocore asks inspect whether each of the ~400 handlers a run registers takes **kwargs (inspect's
    signature machinery, about a tenth of a run). For a plain function or method the answer is a flag of
    its code object, which the server's functions share with the runs: asked once per code object here.
    Anything else (a partial, a callable object, a function given a __signature__) is asked as always.
    """
    import botocore.compat
    import botocore.hooks

    plain = botocore.compat.accepts_kwargs
    known = {}

    def accepts_kwargs(func):
        f = func.__func__ if isinstance(func, types.MethodType) else func
        if type(f) is not types.FunctionType or '__signature__' in f.__dict__ or '_partialmethod' in f.__dict__:
            return plain(func)
        if f.__code__ not in known:
            known[f.__code__] = plain(func)
        return known[f.__code__]

    botocore.compat.accepts_kwargs = botocore.hooks.accepts_kwargs = accepts_kwargs


# Before the driver below: its handlers are the first the code-object answers are kept for.
if os.environ.get('TEST_AWS_WARM_PLAIN') != '1':  # TEST_AWS_WARM_PLAIN=1: only the imports are warm (for comparing)
    list_package_services_once()
    accepts_kwargs_by_code()


# The plugins and customizations `main()` imports lazily on every run (most of the start-up): a driver
# made once here loads them into this process's modules; each run still makes its own driver.
awscli.clidriver.create_clidriver()

SERVER_HOME = os.path.expanduser('~').rstrip('/')


def under_home(value):
    return isinstance(value, str) and (value == SERVER_HOME or value.startswith(SERVER_HOME + '/'))


def home_paths():
    """
    Where the loaded modules keep a string under the server's HOME: (container, key) pairs for module and
    instance dicts, lists and function defaults, and (class, name) for class attributes; plus a list of
    the places that cannot be changed (a tuple, an object without a dict), for the log.
    """
    places, stuck = [], []
    objects = gc.get_objects()
    # Containers of atomic values only are not tracked by the collector: reach them through their holders.
    objects += [r for o in objects for r in gc.get_referents(o) if isinstance(r, (dict, tuple)) and not gc.is_tracked(r)]
    # Not this module's own globals (SERVER_HOME is the one value here that must stay).
    class_dicts, defaults = {id(globals())}, set()
    for obj in objects:
        if isinstance(obj, type):
            class_dicts.update(id(d) for d in gc.get_referents(vars(obj)) if isinstance(d, dict))
            places += [(setattr, obj, k) for k, v in list(vars(obj).items()) if under_home(v)]
        elif isinstance(obj, types.FunctionType) and obj.__defaults__:
            defaults.add(id(obj.__defaults__))
            if any(under_home(v) for v in obj.__defaults__):
                places.append((set_defaults, obj, None))
    for obj in objects:
        if isinstance(obj, dict) and id(obj) not in class_dicts:
            places += [(dict.__setitem__, obj, k) for k, v in list(obj.items()) if under_home(v)]
        elif isinstance(obj, list):
            places += [(list.__setitem__, obj, i) for i, v in enumerate(obj) if under_home(v)]
        elif isinstance(obj, tuple) and id(obj) not in defaults:
            stuck += [v for v in obj if under_home(v)]
    return places, stuck


def set_defaults(fn, _key, move):
    fn.__defaults__ = tuple(move(v) for v in fn.__defaults__)


def move_home(places, home):
    """Points every place found by home_paths() at the same path under `home` (the caller's ~)."""
    home = home.rstrip('/')
    move = lambda v: (home + v[len(SERVER_HOME):] or '/') if under_home(v) else v
    for setter, obj, key in places:
        if setter is set_defaults:
            set_defaults(obj, key, move)
        elif setter is setattr:
            setattr(obj, key, move(getattr(obj, key)))
        else:
            setter(obj, key, move(obj[key]))


HEADER = struct.Struct('!I')
# What the client may send once the run has started: one byte, a signal number it received (forwarded
# to the run's process group). Status back to the client: b'e' and an exit code, or b's' and a signal.
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
# PYTHON* variables a run applies itself (the rest shape an interpreter's start: a caller with another
# value than the server's runs the cold aws, see CLIENT).
APPLIED_AT_RUN = ('PYTHONUNBUFFERED', 'PYTHONDONTWRITEBYTECODE')


def standard_stream(fd, encoding, errors, unbuffered):
    """sys.stdin/stdout/stderr as a fresh Python makes them on the caller's fd (pylifecycle.c create_stdio)."""
    writing = fd != 0
    raw = io.FileIO(fd, 'wb' if writing else 'rb', closefd=False)
    buffered = io.BufferedWriter(raw) if writing else io.BufferedReader(raw)
    stream = io.TextIOWrapper(buffered, encoding, errors, newline='\n',
                              line_buffering=writing and (raw.isatty() or fd == 2), write_through=writing and unbuffered)
    stream.mode = 'w' if writing else 'r'
    return stream


def run_aws(req):
    """The body of the `aws` script, in a forked child whose fds 0-2 are the caller's."""
    os.environ.clear()
    os.environ.update(req['env'])
    # The one thing the CLI takes from the environment when it is imported: awscli/__init__.py adds
    # its data directory to AWS_DATA_PATH (after the caller's). Run again, on the caller's environment.
    importlib.reload(awscli)
    if os.environ.get('LC_CTYPE', '') == 'UTF-8':
        os.environ['LC_CTYPE'] = 'en_US.UTF-8'
    try:
        locale.setlocale(locale.LC_CTYPE, '')
    except locale.Error:
        pass
    # The paths computed from ~ at import, now under the caller's HOME (as os.path.expanduser sees it).
    move_home(HOME_PLACES, os.path.expanduser('~'))
    sys.dont_write_bytecode = bool(os.environ.get('PYTHONDONTWRITEBYTECODE'))
    unbuffered = bool(os.environ.get('PYTHONUNBUFFERED'))
    streams = [standard_stream(fd, enc, errors, unbuffered) for fd, (enc, errors) in enumerate(req['stdio'])]
    sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams
    random.seed()  # not the server's sequence, shared by every run
    os.chdir(req['cwd'])
    sys.argv = ['aws'] + req['argv']
    try:
        code = awscli.clidriver.main()
    except SystemExit as e:
        code = e.code
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    return code


def receive(conn):
    """One request: its three fds and its JSON (argv, env, cwd, stdio encodings), length first."""
    data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 3)
    if len(fds) != 3 or len(data) < HEADER.size:
        raise ValueError('a request needs 3 fds and a header')
    (size,) = HEADER.unpack_from(data)
    body = data[HEADER.size:]
    while len(body) < size:
        more = conn.recv(size - len(body))
        if not more:
            raise ValueError('request cut short')
        body += more
    return fds, json.loads(body)


def signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def announce(argv):
    """
    Tells the test process (a line on the server's stdout: "run" and the first arguments as JSON) that a
    run starts: a test waits for that event (aws-warm.ts onRun) instead of asking moto again and again
    whether the run's request has come. One write of less than PIPE_BUF bytes: lines from handlers
    running at once never interleave.
    """
    line = 'run %s\n' % json.dumps([a[:40] for a in argv[:8]])  # ASCII (escapes), at most 8 * 246 bytes
    try:
        os.write(1, line.encode())
    except OSError:
        pass  # the test process is gone: the run goes on (its client ends it)


def handle(conn):
    """
    In a child of the server: runs one request in a grandchild, the leader of a process group of its
    own, and reports its status to the client. A signal the client forwards goes to that group; when
    the client goes away before the run ends (killed), the whole group is killed: what the run started
    (a credential_process, a `!` alias) does not outlive its caller.
    """
    fds, req = receive(conn)
    announce(req['argv'])
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        conn.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        code = 1
        try:
            code = run_aws(req)
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code & 0xFF if isinstance(code, int) else 1)
    try:
        os.setpgid(pid, pid)  # also here: a signal may come before the child has run setpgid
    except OSError:
        pass
    for fd in fds:
        os.close(fd)
    sel = selectors.DefaultSelector()
    sel.register(conn, selectors.EVENT_READ)
    r, w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    sel.register(r, selectors.EVENT_READ)
    gone = False
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        for key, _ in sel.select():
            if key.fileobj is not conn:
                os.read(r, 512)
                continue
            try:
                data = conn.recv(64)
            except OSError:
                data = b''
            if not data:
                gone = True
                sel.unregister(conn)
                signal_group(pid, signal.SIGKILL)
            for sig in data:
                if sig in FORWARDED:
                    signal_group(pid, sig)
    if gone:
        signal_group(pid, signal.SIGKILL)  # what the run left in its group (the leader is reaped, the group lives on while it has members)
        return
    reply = b's' + bytes([os.WTERMSIG(status)]) if os.WIFSIGNALED(status) else b'e' + bytes([os.WEXITSTATUS(status) & 0xFF])
    try:
        conn.sendall(reply)
    except OSError:
        pass


def reap():
    """Waits for the handlers that ended (so their CPU time, and their runs', counts as ours: the test runner reports it)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def serve(path):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    print('ready', flush=True)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ)
    sel.register(sys.stdin, selectors.EVENT_READ)
    while True:
        for key, _ in sel.select(timeout=1):
            if key.fileobj is sys.stdin:
                if not os.read(0, 512):
                    reap()
                    return  # the test process closed our stdin (or died): stop
                continue
            conn, _ = listener.accept()
            if os.fork() == 0:
                listener.close()
                try:
                    handle(conn)
                except BaseException:
                    traceback.print_exc()
                finally:
                    os._exit(0)
            conn.close()
        reap()


CLIENT = r"""#!{python} -IS
# The aws CLI, started warm (test/support/aws-warm.py): this process passes its arguments, environment,
# working directory and standard fds to the server, forwards the signals it gets to the run, and ends
# as the run did (its exit code, or killed by the same signal). It runs the cold aws instead when the
# warm one could differ: a PYTHON* variable other than the server's, a user site directory in this
# HOME (a fresh Python would load it), a standard fd closed, or no server.
import json, os, signal, socket, struct, sys
AWS = {aws!r}
SERVER_PYTHON_ENV = {python_env!r}
APPLIED_AT_RUN = {applied!r}
USER_SITE = {user_site!r}
FORWARDED = {forwarded!r}


def cold():
    os.execv(AWS, [AWS] + sys.argv[1:])


def fd_open(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


python_env = {{k: v for k, v in os.environ.items() if k.startswith('PYTHON') and k not in APPLIED_AT_RUN}}
if python_env != SERVER_PYTHON_ENV or not all(fd_open(fd) for fd in (0, 1, 2)):
    cold()
if USER_SITE and os.path.isdir(os.path.join(os.path.expanduser('~'), USER_SITE)):
    cold()
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect({socket!r})
except OSError:
    cold()
stdio = [[f.encoding, f.errors] for f in (sys.stdin, sys.stdout, sys.stderr)]
body = json.dumps({{'argv': sys.argv[1:], 'env': dict(os.environ), 'cwd': os.getcwd(), 'stdio': stdio}}).encode()
socket.send_fds(s, [struct.pack('!I', len(body)) + body[:32768]], [0, 1, 2])
if len(body) > 32768:
    s.sendall(body[32768:])
def forward(sig, _frame):
    try:
        s.send(bytes([sig]))
    except OSError:
        pass


for sig in FORWARDED:
    signal.signal(sig, forward)
status = b''
while len(status) < 2:
    more = s.recv(2 - len(status))
    if not more:
        sys.stderr.write('aws (warm test start): the server went away during the run\n')
        sys.exit(255)
    status += more
if status[:1] == b's':
    signal.signal(status[1], signal.SIG_DFL)
    os.kill(os.getpid(), status[1])
    sys.exit(128 + status[1])
sys.exit(status[1])
"""


def write_client(client_path, socket_path, aws_path):
    """The client script for this server at `client_path` (the `aws` the tests find first on PATH)."""
    user_site = None
    if site.ENABLE_USER_SITE and site.USER_SITE:
        user_site = os.path.relpath(site.getusersitepackages(), SERVER_HOME)
    python_env = {k: v for k, v in os.environ.items() if k.startswith('PYTHON') and k not in APPLIED_AT_RUN}
    with open(client_path, 'w') as f:
        f.write(CLIENT.format(python=sys.executable, aws=aws_path, python_env=python_env, applied=APPLIED_AT_RUN,
                              user_site=user_site, forwarded=tuple(int(s) for s in FORWARDED), socket=socket_path))
    os.chmod(client_path, 0o755)


if __name__ == '__main__':
    # python aws-warm.py SOCKET CLIENT AWS: writes the client, then serves until stdin closes.
    HOME_PLACES, HOME_STUCK = home_paths()
    if HOME_STUCK:
        print('aws-warm: values under the server HOME no run can move (they point into its empty HOME): %r' % HOME_STUCK, file=sys.stderr)
    write_client(sys.argv[2], sys.argv[1], sys.argv[3])
    # Everything loaded so far out of the collector's reach: a run's collections then never walk (and so
    # never copy-on-write) the server's pages of imported modules, only what the run itself makes (about
    # a sixth of a run's CPU on the test machine). Objects still go when their last reference does.
    gc.freeze()
    serve(sys.argv[1])
