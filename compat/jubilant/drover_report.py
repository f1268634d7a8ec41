"""pytest plugin for `npm run compat:jubilant`: one JSON line per test phase that did not pass.

Loaded with `-p drover_report` beside jubilant's own conftest (jubilant's source is not changed).
Each line is {"nodeid", "when", "outcome", "message", "detail", "duration"}; a test whose phases
all pass gets one line with "when": "call". "message" is the failure's first line, and for a Juju
command that failed (jubilant's CLIError) the first line of its stderr too, so a table row says
which command failed and what it said; "detail" is the whole failure, cut to a few KiB. The
harness reads the file named by DROVER_REPORT.
"""

from __future__ import annotations

import json
import os

import pytest

DETAIL_CHARS = 6000


def _first_line(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, 'reprcrash', None)
    if crash is not None and getattr(crash, 'message', None):
        text = crash.message
    elif isinstance(report.longrepr, tuple):  # a skip: (file, line, reason)
        text = str(report.longrepr[2])
    else:
        text = str(report.longrepr or '')
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ''
    if 'Stderr:' in lines:
        said = lines[lines.index('Stderr:') + 1 :]
        if said:
            return f'{lines[0]} {said[0]}'
    return lines[0]


def _write(entry: dict[str, object]) -> None:
    path = os.environ.get('DROVER_REPORT')
    if not path:
        return
    with open(path, 'a', encoding='utf-8') as f:
        f.write(json.dumps(entry) + '\n')


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    failed_or_skipped = report.failed or report.skipped
    if not failed_or_skipped and report.when != 'call':
        return
    _write(
        {
            'nodeid': report.nodeid,
            'when': report.when,
            'outcome': report.outcome,
            'message': _first_line(report) if failed_or_skipped else '',
            'detail': report.longreprtext[-DETAIL_CHARS:] if report.failed else '',
            'duration': round(report.duration, 1),
        }
    )
