"""A tiny stand-in for the ops framework: the same hook tool calls, flags and parsing as ops
(https://github.com/canonical/operator, ops/hookcmds/ and ops/model.py's _ModelBackend), with
every call recorded as one JSON line in <unit dir>/ops-record.jsonl, so a test can check what a
real ops charm would have been given. Python standard library only."""

import json
import os
import subprocess
import sys
import time

_DIR = os.path.dirname(os.environ.get('JUJU_CHARM_DIR') or os.getcwd())
RECORD = os.path.join(_DIR, 'ops-record.jsonl')


def record(kind, **fields):
    with open(RECORD, 'a') as f:
        f.write(json.dumps({'kind': kind, 'event': EVENT, **fields}) + '\n')


class ModelError(Exception):
    pass


def run(*args, input=None):
    """ops.hookcmds._utils.run: a tool's stdout, or ModelError with its stderr."""
    try:
        result = subprocess.run(args, capture_output=True, encoding='utf-8', input=input)
    except FileNotFoundError as e:
        record('call', cmd=list(args), rc=127, stdout='', stderr=str(e))
        raise ModelError(str(e)) from None
    record('call', cmd=list(args), rc=result.returncode, stdout=result.stdout, stderr=result.stderr)
    if result.returncode != 0:
        raise ModelError(result.stderr)
    return result.stdout


def event_name():
    """ops._main._Dispatcher: the event from JUJU_DISPATCH_PATH (hooks/x-y → x_y; actions/a → a_action)."""
    path = os.environ.get('JUJU_DISPATCH_PATH', '')
    kind, _, name = path.partition('/')
    name = name.replace('-', '_')
    return name + '_action' if kind == 'actions' else name


EVENT = event_name()


def log(message, level='DEBUG'):
    run('juju-log', '--log-level', level, '--', message)


_leader = {'checked': None, 'value': None}


def is_leader():
    """ops caches is-leader for 30 s within one dispatch (Juju guarantees it that long)."""
    now = time.monotonic()
    if _leader['checked'] is None or now > _leader['checked'] + 30:
        _leader['checked'] = now
        _leader['value'] = json.loads(run('is-leader', '--format=json'))
    return _leader['value']


def config_get():
    return json.loads(run('config-get', '--format=json'))


def relation_ids(name):
    return [int(r.split(':')[-1]) for r in json.loads(run('relation-ids', name, '--format=json'))]


def relation_list(relation_id, app=False):
    args = ['--format=json', '-r', str(relation_id)]
    if app:
        args = ['--format=json', '--app', '-r', str(relation_id)]
    return json.loads(run('relation-list', *args))


def relation_get(relation_id, member, app=False):
    args = ['--format=json', '-r', str(relation_id)]
    if app:
        args.append('--app')
    args.extend(['-', member])
    return json.loads(run('relation-get', *args))


def relation_set(relation_id, data, app=False):
    args = ['-r', str(relation_id)]
    if app:
        args.append('--app')
    args.extend(['--file', '-'])
    # ops dumps YAML; JSON is YAML too, and needs no library here.
    run('relation-set', *args, input=json.dumps(data))


def status_set(status, message='', app=False):
    args = [f'--application={app}', status]
    if message:
        args.extend(['--', message])
    run('status-set', *args)


def status_get(app=False):
    return json.loads(run('status-get', '--include-data', '--format=json', f'--application={str(app).lower()}'))


def application_version_set(version):
    run('application-version-set', '--', version)


def action_get():
    return json.loads(run('action-get', '--format=json'))


def action_set(results):
    run('action-set', *[f'{k}={v}' for k, v in results.items()])


def action_log(message):
    run('action-log', '--', message)


def action_fail(message=''):
    run('action-fail', *([message] if message else []))


def main(handlers, collect_unit_status=None, collect_app_status=None):
    """ops.main: log the event, run its handler, then evaluate status as ops._evaluate_status does."""
    env = {k: v for k, v in os.environ.items() if k.startswith('JUJU_') or k == 'CHARM_DIR'}
    record('dispatch', env=env, argv0=sys.argv[0])
    log(f'Emitting Juju event {EVENT}.')
    handler = handlers.get(EVENT)
    if handler is not None:
        handler()
    if not os.environ.get('JUJU_ACTION_NAME'):
        if is_leader() and collect_app_status is not None:
            status_set(*collect_app_status(), app=True)
        if collect_unit_status is not None:
            status_set(*collect_unit_status())
