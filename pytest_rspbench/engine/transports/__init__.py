"""Engines that run as services: reached over HTTP, WebSocket or MQTT.

An ``engine.yaml`` names one under ``adapter:`` as ``http:``, ``websocket:``
or ``mqtt:`` (:mod:`~pytest_rspbench.engine.transports.config`). Each
transport speaks the same protocol as an engine process on stdin/stdout
(docs/engine-protocol.md): registration, events, results, end of stream and
errors, so every engine is judged alike. The harness either starts the
service (``command:``, stopped with its whole process tree) or reaches one
that is already running (``url:``). Results are stamped when they arrive at
the harness, whatever carried them.
"""
