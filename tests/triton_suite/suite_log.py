"""The suite's JSON-lines log, shared by the runner (which reads outcomes) and the pytest
plugin (which writes them and skips finished tests on resume): one record per line,
{"event": "start" | "result" | "killed", "nodeid": ..., "outcome": ...}."""

import json
import os


def records(path):
    """The log's records in order; a line cut short by a killed process is skipped."""
    if not path or not os.path.exists(path):
        return
    with open(path) as f:
        for line in f:
            try:
                yield json.loads(line)
            except ValueError:
                continue
