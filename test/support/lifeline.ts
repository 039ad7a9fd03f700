/**
 * Preloaded into a server a test starts (`node --import <this> bin/assistant.js backend serve …`, see
 * backend.ts): the server's stdin is a pipe from the test process, and when it closes (the test process
 * is gone, even by kill -9 on the runner's timeout) the server is sent SIGTERM, its own graceful stop
 * (bounded by the server's mustEndWithin). Without it, a killed test file left its servers running.
 * The same lifeline as postgres.ts and moto.ts, without a shell in between: the server keeps its pid,
 * which tests signal and find in its lock file.
 */
const stop = () => process.kill(process.pid, 'SIGTERM');
process.stdin.once('end', stop).once('error', stop);
process.stdin.resume();
// The pipe alone must not keep a server alive that has ended its work.
process.stdin.unref();
