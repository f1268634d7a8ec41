"""pytest plugin for `npm run compat:jubilant`: one JSON line per test phase that did not pass.

Loaded with `-p drover_report` beside jubilant's own conftest (jubilant's source is not changed).
Each line is {"nodeid", "when", "outcome", "message", "detail", "duration"}; a test whose phases
all pass gets one line with "when": "call". "message" is the failure in one line: for a Juju
command that failed (jubilant's CLIError) the command and the first line of its stderr, so a table
row says which command failed and what it said, after the failure it was raised while handling,
if any; "detail" is the whole failure, cut to a few KiB. The harness reads the file named by
DROVER_REPORT.
"""

from __future__ import annotations

import json
import os

import pytest

DETAIL_CHARS = 6000


def _said(exc: BaseException) -> str:
    """One line for an exception; for a failed Juju command, the command and its stderr's first line."""
    cmd, stderr = getattr(exc, 'cmd', None), getattr(exc, 'stderr', None)
    if isinstance(cmd, (list, tuple)) and isinstance(stderr, str):
        args = list(cmd)
        if '--model' in args:  # the temporary model's random name says nothing
            at = args.index('--model')
            del args[at : at + 2]
        lines = [line.strip() for line in stderr.splitlines() if line.strip()]
        first = lines[0] if lines else '(no stderr)'
        return f'`{" ".join(args)}` exit {getattr(exc, "returncode", "?")}: {first}'
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f'{type(exc).__name__}: {lines[0]}' if lines else type(exc).__name__


def _handling(exc: BaseException) -> BaseException | None:
    """The failure `exc` was raised while handling, if any. jubilant raises CLIError `from None`
    over the CalledProcessError of the same command, so the chain is walked past those: in the
    juju fixture's teardown, `debug-log` failing makes `destroy-model` run in a `finally`, and the
    first failure would otherwise hide under the second."""
    seen = exc.__context__
    while seen is not None and getattr(seen, 'cmd', object()) == getattr(exc, 'cmd', None):
        seen = seen.__context__
    return seen


def _message(exc: BaseException) -> str:
    said = _said(exc)
    earlier = _handling(exc)
    return f'{_said(earlier)}, then {said}' if earlier is not None else said


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None and not call.excinfo.errisinstance(pytest.skip.Exception):
        report.drover_message = _message(call.excinfo.value)


def _first_line(report: pytest.TestReport) -> str:
    if getattr(report, 'drover_message', None):
        return report.drover_message
    if isinstance(report.longrepr, tuple):  # a skip: (file, line, reason)
        return str(report.longrepr[2])
    lines = [line.strip() for line in str(report.longrepr or '').splitlines() if line.strip()]
    return lines[0] if lines else ''


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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselects the tests the harness does not run (DROVER_NOT_RUN: a JSON list of test modules
    and node ids), each by its exact id: pytest's --deselect matches prefixes, so deselecting
    test_deploy would take test_deploy_with_resources with it."""
    listed = os.environ.get('DROVER_NOT_RUN')
    if not listed:
        return
    not_run = set(json.loads(listed))
    keep, drop = [], []
    for item in items:
        module = item.nodeid.split('::')[0]
        (drop if item.nodeid in not_run or module in not_run else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
