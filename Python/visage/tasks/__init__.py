"""`visage.tasks`: as `mediapipe.tasks`, whose `python` package holds the Tasks API."""
