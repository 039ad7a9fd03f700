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
argument vector, environment, working directory and its three standard file descriptors over the
Unix socket (SCM_RIGHTS), and exits with the run's exit status. When the client dies (killed on a
timeout, its process group signalled) the run is killed too: nothing outlives its caller.

    python aws-warm.py SOCKET_PATH     prints "ready" on stdout once it accepts; ends when stdin closes
"""
import gc
import importlib
import json
import os
import selectors
import signal
import socket
import struct
import sys
import traceback
import types

import awscli
import awscli.clidriver

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


HOME_PLACES, HOME_STUCK = home_paths()
if HOME_STUCK:
    print('aws-warm: values under the server HOME no run can move (they point into its empty HOME): %r' % HOME_STUCK, file=sys.stderr)

HEADER = struct.Struct('!I')


def run_aws(argv, env, cwd):
    """The body of the `aws` script, in a forked child whose fds 0-2 are the caller's."""
    os.environ.clear()
    os.environ.update(env)
    # The one thing the CLI takes from the environment when it is imported: awscli/__init__.py adds
    # its data directory to AWS_DATA_PATH (after the caller's). Run again, on the caller's environment.
    importlib.reload(awscli)
    if os.environ.get('LC_CTYPE', '') == 'UTF-8':
        os.environ['LC_CTYPE'] = 'en_US.UTF-8'
    # The paths computed from ~ at import, now under the caller's HOME (as os.path.expanduser sees it).
    move_home(HOME_PLACES, os.path.expanduser('~'))
    os.chdir(cwd)
    sys.argv = ['aws'] + argv
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
    """One request: its three fds and its JSON (argv, env, cwd), length first."""
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


def handle(conn):
    """In a child of the server: runs one request in a grandchild and reports its status to the client."""
    fds, req = receive(conn)
    pid = os.fork()
    if pid == 0:
        conn.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        code = 1
        try:
            code = run_aws(req['argv'], req['env'], req['cwd'])
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code & 0xFF if isinstance(code, int) else 1)
    for fd in fds:
        os.close(fd)
    # The client sends nothing more: readable means it is gone (EOF), and the run goes with it.
    sel = selectors.DefaultSelector()
    sel.register(conn, selectors.EVENT_READ)
    r, w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    sel.register(r, selectors.EVENT_READ)
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        for key, _ in sel.select():
            if key.fileobj is conn:
                os.kill(pid, signal.SIGKILL)
                sel.unregister(conn)
            else:
                os.read(r, 512)
    code = os.waitstatus_to_exitcode(status)
    code = code if code >= 0 else 128 - code
    try:
        conn.sendall(bytes([code & 0xFF]))
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


CLIENT = r'''#!{python} -IS
# The aws CLI, started warm (test/support/aws-warm.py): this process passes its arguments, environment,
# working directory and standard fds to the server and exits as the run did.
import json, os, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect({socket!r})
except OSError as e:
    sys.stderr.write('aws (warm test start): server not reachable: %s\n' % e)
    sys.exit(255)
body = json.dumps({{'argv': sys.argv[1:], 'env': dict(os.environ), 'cwd': os.getcwd()}}).encode()
socket.send_fds(s, [struct.pack('!I', len(body)) + body[:32768]], [0, 1, 2])
if len(body) > 32768:
    s.sendall(body[32768:])
code = s.recv(1)
sys.exit(code[0] if code else 255)
'''


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == '--client':
        # Writes the client script for a server on SOCKET to PATH.
        with open(sys.argv[3], 'w') as f:
            f.write(CLIENT.format(python=sys.executable, socket=sys.argv[2]))
        os.chmod(sys.argv[3], 0o755)
    else:
        serve(sys.argv[1])
