"""Speech in and out, offline: microphone capture, VAD end-pointing, Whisper ASR, TTS, spoken replies, the
real TTS→ASR channel and a loopback audio rig.

- :mod:`audio.devices` — is PortAudio there, which input/output devices exist (never raises); rescan.
- :mod:`audio.capture` — the microphone as timed 16 kHz blocks; one recorded turn to a WAV.
- :mod:`audio.vad` — Silero VAD (faster-whisper's model) streamed, and the end-of-turn end-pointer.
- :mod:`audio.listen` — hands-free listening: utterances cut by voice activity, transcribed speculatively.
- :mod:`audio.asr` — faster-whisper (CTranslate2, int8 on CPU): bundled tiny.en (default) and base, any
  CTranslate2 folder, or a hub id where a network exists.
- :mod:`audio.tts` — piper voice en_US joe medium (default), espeak-ng fallback, Coqui TTS optional; playback.
- :mod:`audio.voices` — the three synthesiser backends behind :func:`audio.tts.get_tts`.
- :mod:`audio.speaker` — replies spoken sentence by sentence as they are made, with barge-in.
- :mod:`audio.voice` — the spoken-turn path shared by the TUI and ``parley chat --audio-script``; stage
latencies.
- :mod:`audio.latency` — the latency table of stored spoken turns (``parley score --latency``).
- :mod:`audio.channel` — the ``asr-real`` rewriter: synthesise → optional noise/speed → transcribe.
- :mod:`audio.rig` — a loopback microphone and speaker through PulseAudio, for tests and for trying voice
mode.
- :mod:`audio.utterances` — spoken test turns: piper speech over room noise.
- :mod:`audio.models` — where the bundled model files are (found with importlib, never downloaded).
- :mod:`audio.wer` — word error rate with Whisper's English normalisation (jiwer + whisper-normalizer).

Nothing here imports textual or tui; heavy libraries (faster_whisper, piper, sounddevice, ctranslate2) are
imported inside the functions that use them, so importing any module of this package is cheap.
"""
