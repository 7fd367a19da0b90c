// An OTLP/HTTP collector stand-in for the traced rows: takes every export, answers 200 and
// keeps nothing. It runs as a child of the traced server (an IPC channel), tells its port
// over that channel, and exits when its parent goes away, however it went.
import http from 'node:http';

let exports = 0;
let bytes = 0;
const sink = http.createServer((req, res) => {
  req.on('data', (c) => (bytes += c.length));
  req.on('end', () => {
    exports += 1;
    res.writeHead(200, { 'content-type': 'application/x-protobuf' });
    res.end();
  });
});
sink.keepAliveTimeout = 60_000;
sink.listen(0, '127.0.0.1', () => process.send({ port: sink.address().port }));
process.on('message', (m) => {
  if (m === 'counts') process.send({ exports, bytes });
});
process.on('disconnect', () => process.exit(0));
