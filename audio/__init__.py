"""Speech in and out, offline: microphone capture, Whisper ASR, TTS and the real TTS→ASR channel.

- :mod:`audio.devices` — is PortAudio there, which input/output devices exist (never raises).
- :mod:`audio.capture` — push-to-talk recording with energy end-pointing to a 16 kHz mono WAV.
- :mod:`audio.asr` — faster-whisper (CTranslate2, int8 on CPU): bundled tiny.en (default) and base, any
  CTranslate2 folder, or a hub id where a network exists.
- :mod:`audio.tts` — piper voice en_US joe medium (default), espeak-ng fallback, Coqui TTS optional; playback.
- :mod:`audio.voices` — the three synthesiser backends behind :func:`audio.tts.get_tts`.
- :mod:`audio.channel` — the ``asr-real`` rewriter: synthesise → optional noise/speed → transcribe.
- :mod:`audio.models` — where the bundled model files are (found with importlib, never downloaded).
- :mod:`audio.wer` — word error rate with Whisper's English normalisation (jiwer + whisper-normalizer).

Nothing here imports textual or tui; heavy libraries (faster_whisper, piper, sounddevice, ctranslate2) are
imported inside the functions that use them, so importing any module of this package is cheap.
"""
