#!/bin/bash
# Every hook tool (juju-log, relation-get, ...), named by the file it is installed as, as Juju's
# jujuc is by its links: sends its name, arguments and working directory to the unit agent and
# prints what the agent answers, exiting with its code. All parsing and formatting happens in the
# agent, which holds the hook's context. bash with builtins alone, no JSON: a call costs a bash
# start and one round trip over TCP to 127.0.0.1, a few milliseconds where a Node client took
# sixty (bench/RESULTS.md), and an ops charm calls a tool for every line it logs. The frame is
# described in agent/hook-tools/tool-frame.ts.
#
# Files are this process's business, never the agent's: it reads the file `--file <path>` names
# and sends what it holds, and writes the answer of `-o <path>` itself, so a hook can make the
# agent read or write nothing the hook could not (agent/hook-tools/tool-context.ts).

LC_ALL=C # ${#var} counts bytes, and read -N reads them
PROTOCOL=drover-tool/1
MAX_PAYLOAD_BYTES=4194304 # agent/hook-tools/tool-frame.ts, MAX_PAYLOAD_BYTES
tool=${0##*/}

# What goes wrong before the agent answers is this client's error, as Juju's jujud prints those
# of its hook tool client: `error: <message>`, exit 1 (cmd/jujud/main.go). What the tool itself
# refuses comes back from the agent as `ERROR <message>`, as juju/cmd writes it.
fail() {
  printf 'error: %s\n' "$1" >&2
  exit 1
}

# A failure of the tool's own file handling, as Go reports it: `ERROR open /abs/path: no such file
# or directory` (juju/cmd's FileVar and Output open the path joined to the hook's directory).
fail_file() {
  printf 'ERROR %s %s: %s\n' "$1" "$2" "${3,}" >&2
  exit 1
}
absolute() {
  if [[ $1 == /* ]]; then printf '%s' "$1"; else printf '%s/%s' "$PWD" "$1"; fi
}

[[ -n $JUJU_CONTEXT_ID ]] || fail 'JUJU_CONTEXT_ID not set'
[[ -n $DROVER_HOOK_SECRET ]] || fail 'DROVER_HOOK_SECRET not set'
address=$JUJU_AGENT_SOCKET_ADDRESS
[[ -n $address ]] || fail 'JUJU_AGENT_SOCKET_ADDRESS not set'
[[ ${JUJU_AGENT_SOCKET_NETWORK:-tcp} == tcp ]] || fail "JUJU_AGENT_SOCKET_NETWORK is \"$JUJU_AGENT_SOCKET_NETWORK\": these tools speak tcp"

# Only relation-set and state-set take --file; with `-` (ops's way of calling both) they read
# standard input, and no other tool may wait on it. read -N stops at the count or the end, and
# reads a pipe in blocks where -d '' would read it a byte at a time; it drops NUL bytes, which no
# YAML document (what both tools parse) may hold.
kind=none
payload=
if [[ $tool == relation-set || $tool == state-set ]]; then
  file=
  value_next=
  for arg; do
    if [[ -n $value_next ]]; then
      file=$arg
      value_next=
    elif [[ $arg == --file ]]; then
      value_next=1
    elif [[ $arg == --file=* ]]; then
      file=${arg#--file=}
    fi
  done
  if [[ $file == - ]]; then
    kind=stdin
    IFS= read -r -N $((MAX_PAYLOAD_BYTES + 1)) payload
  elif [[ -n $file ]]; then
    kind=file
    [[ -d $file ]] && fail_file read "$(absolute "$file")" 'is a directory'
    if ! { exec 4<"$file"; } 2>/dev/null; then
      why=$({ : <"$file"; } 2>&1)
      fail_file open "$(absolute "$file")" "${why##*: }"
    fi
    IFS= read -r -N $((MAX_PAYLOAD_BYTES + 1)) payload <&4
    exec 4<&-
  fi
  if ((${#payload} > MAX_PAYLOAD_BYTES)); then
    printf 'ERROR cannot read %s: more than %s bytes\n' "$file" "$MAX_PAYLOAD_BYTES" >&2
    exit 1
  fi
fi

# secret-add and secret-set take `key#file=<path>` (how ops passes content): this process reads
# the file and sends it as `key#base64=`, so the agent opens no path a hook names (base64 -w0 is
# coreutils', on every machine a charm runs on).
if [[ $tool == secret-add || $tool == secret-set ]]; then
  rewritten=()
  for arg; do
    if [[ $arg =~ ^([^=]+)#file=(.*)$ ]]; then
      path=${BASH_REMATCH[2]}
      # As Go's os.ReadFile fails in Juju's secret-add: `open <path>: ...`, `read <path>: is a directory`.
      if [[ ! -e $path ]]; then fail_file open "$(absolute "$path")" 'no such file or directory'; fi
      if [[ -d $path ]]; then fail_file read "$(absolute "$path")" 'is a directory'; fi
      if [[ ! -r $path ]]; then fail_file open "$(absolute "$path")" 'permission denied'; fi
      rewritten+=("${BASH_REMATCH[1]}#base64=$(base64 -w0 <"$path")")
    else
      rewritten+=("$arg")
    fi
  done
  set -- "${rewritten[@]}"
fi

{ exec 3<>"/dev/tcp/${address%:*}/${address##*:}"; } 2>/dev/null || fail "cannot reach the unit agent at $address"
# An agent that stops reading has refused the request and answers why: a failed write must not
# kill the tool with SIGPIPE before it reads that answer.
trap '' PIPE
{
  printf '%s\0' "$PROTOCOL" "$DROVER_HOOK_SECRET" "$JUJU_CONTEXT_ID" "$PWD" "$tool" "$#" "$@" "$kind" "${#payload}"
  printf '%s' "$payload"
} >&3 2>/dev/null

IFS= read -r header <&3
[[ $header =~ ^drover-tool/1\ ([0-9]+)\ ([0-9]+)\ ([0-9]+)\ ([0-9]+)\ ([01])$ ]] ||
  fail "the unit agent at $address sent no answer"
code=${BASH_REMATCH[1]}
stderr_bytes=${BASH_REMATCH[2]}
path_bytes=${BASH_REMATCH[3]}
body_bytes=${BASH_REMATCH[4]}
raw=${BASH_REMATCH[5]}
why=
errors=
path=
body=
((stderr_bytes == 0)) || IFS= read -r -N "$stderr_bytes" errors <&3
((path_bytes == 0)) || IFS= read -r -N "$path_bytes" path <&3
# No bash variable holds a NUL byte: a body with one (raw) is copied as it comes; it ends the answer.
((raw || body_bytes == 0)) || IFS= read -r -N "$body_bytes" body <&3

if [[ -n $path ]]; then
  if ((raw)); then
    why=$({ cat <&3 >"$path"; } 2>&1)
  elif ! { printf '%s' "$body" >"$path"; } 2>/dev/null; then
    why=$({ : >>"$path"; } 2>&1)
    why=${why:-cannot open it}
  fi
  if [[ -n $why ]]; then
    code=1
    why=${why##*: }
    errors="ERROR open $(absolute "$path"): ${why,}"$'\n'$errors
  fi
elif ((raw)); then
  cat <&3
else
  printf '%s' "$body"
fi
printf '%s' "$errors" >&2
exit "$code"
