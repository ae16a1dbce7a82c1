// SPDX-License-Identifier: MIT
// A loopback OTLP/HTTP receiver for the tests: decodes what cudatracer sends
// with the OpenTelemetry project's own generated protobuf code
// (@opentelemetry/otlp-transformer) and prints each request as one JSON
// line: {"path": "/v1/metrics", "headers": {...}, "body": <decoded>}, or
// {"path": ..., "error": "..."} when it does not decode. The first line is
// {"port": N}. It answers 200 with an empty Export*ServiceResponse.
"use strict";
const http = require("http");
const root = require("@opentelemetry/otlp-transformer/build/src/generated/root");

const v1 = root.opentelemetry.proto.collector;
const types = {
  "/v1/metrics": [v1.metrics.v1.ExportMetricsServiceRequest, v1.metrics.v1.ExportMetricsServiceResponse],
  "/v1/traces": [v1.trace.v1.ExportTraceServiceRequest, v1.trace.v1.ExportTraceServiceResponse],
};
// 64-bit integers as decimal strings, enums as numbers, ids as hex: exact in JSON
const asObject = { longs: String, enums: Number, bytes: String, defaults: false, arrays: true };

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const t = types[req.url];
    const out = { path: req.url, method: req.method, headers: req.headers };
    if (!t) {
      out.error = "unknown path";
      res.writeHead(404);
      res.end();
    } else {
      try {
        const msg = t[0].decode(Buffer.concat(chunks));
        out.body = t[0].toObject(msg, asObject);
        res.writeHead(200, { "Content-Type": "application/x-protobuf" });
        res.end(Buffer.from(t[1].encode(t[1].create({})).finish()));
      } catch (e) {
        out.error = String(e);
        res.writeHead(400);
        res.end(String(e));
      }
    }
    process.stdout.write(JSON.stringify(out) + "\n");
  });
});

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ port: server.address().port }) + "\n");
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
