#!/usr/bin/env python3
"""The ops-shaped conformance charm: what an ops charm does with leadership, application data,
peers and actions, through venv/opsish (the same tool calls as ops)."""

import os

import opsish as ops

APP = os.environ['JUJU_UNIT_NAME'].split('/')[0]
UNIT = os.environ['JUJU_UNIT_NAME']


def greeting():
    return f"{ops.config_get().get('greeting', 'hello')} from {APP}"


def write_app_data(endpoint):
    """The leader publishes its greeting in every relation of the endpoint (peers too)."""
    if not ops.is_leader():
        return
    for rid in ops.relation_ids(endpoint):
        ops.relation_set(rid, {'greeting': greeting(), 'leader': UNIT}, app=True)


def read_remote_app_data():
    rid = int(os.environ['JUJU_RELATION_ID'].split(':')[1])
    remote_app = os.environ.get('JUJU_REMOTE_APP') or ops.relation_list(rid, app=True)
    data = ops.relation_get(rid, remote_app, app=True)
    ops.record('remote-app-data', relation=rid, app=remote_app, data=data, remote_unit=os.environ.get('JUJU_REMOTE_UNIT', ''))


def on_install():
    ops.status_set('maintenance', 'installing')
    ops.application_version_set('1.0.0')


def on_leader_elected():
    for endpoint in ('cluster', 'db', 'backend'):
        write_app_data(endpoint)


def on_config_changed():
    """A new greeting is published at once, so the other side sees an app-data-only change."""
    on_leader_elected()


def on_relation_created():
    endpoint = os.environ['JUJU_RELATION']
    write_app_data(endpoint)


def on_relation_changed():
    read_remote_app_data()


def on_greet_action():
    params = ops.action_get()
    ops.action_log(f"greeting {params['name']}")
    if params.get('fail'):
        ops.action_fail(f"asked to fail greeting {params['name']}")
        return
    ops.action_set({'greeting': f"{greeting()} to {params['name']}", 'unit': UNIT})


handlers = {
    'install': on_install,
    'leader_elected': on_leader_elected,
    'config_changed': on_config_changed,
    'greet_action': on_greet_action,
}
for endpoint in ('cluster', 'db', 'backend'):
    handlers[f'{endpoint}_relation_created'] = on_relation_created
    handlers[f'{endpoint}_relation_changed'] = on_relation_changed

ops.main(
    handlers,
    collect_unit_status=lambda: ('active', 'leader' if ops.is_leader() else 'follower'),
    collect_app_status=lambda: ('active', f'{APP} ready'),
)
