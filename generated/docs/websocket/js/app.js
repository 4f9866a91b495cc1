
    const schema = {
  "asyncapi": "3.0.0",
  "info": {
    "title": "Live speech-to-text WebSocket",
    "version": "2",
    "description": "Streaming side of a live session. Create the session with `POST /v2/live` (see `/openapi.json`), connect to its `url` (`/v2/live?token=<SESSION_TOKEN>`), send audio as binary frames or `audio_chunk` messages and `stop_recording` when done. The service sends the messages below, then closes the connection. Messages marked `x-callback: true` are also posted to the callback URL when one is configured, wrapped as `{id, event: \"live.<type>\", payload}`.",
    "license": {
      "name": "Apache-2.0"
    }
  },
  "defaultContentType": "application/json",
  "servers": {
    "live": {
      "host": "localhost:8080",
      "protocol": "ws",
      "description": "The service's WebSocket address (wss behind TLS); the init `url` gives the exact one."
    },
    "callbackReceiver": {
      "host": "callback.example.com",
      "protocol": "https",
      "description": "The client's HTTPS endpoint named in `callback_config.url`."
    }
  },
  "channels": {
    "liveSession": {
      "address": "/v2/live",
      "title": "/v2/live?token=<SESSION_TOKEN>",
      "description": "One WebSocket per session carrying every client and server message.",
      "servers": [
        "$ref:$.servers.live"
      ],
      "bindings": {
        "ws": {
          "method": "GET",
          "query": {
            "type": "object",
            "required": [
              "token"
            ],
            "properties": {
              "token": {
                "type": "string",
                "minLength": 1,
                "description": "Session token from the init `url`; invalid or expired closes with 4401."
              }
            }
          },
          "bindingVersion": "0.1.0"
        }
      },
      "x-close-codes": [
        {
          "code": 1000,
          "description": "The session ended normally."
        },
        {
          "code": 1011,
          "description": "The session failed; the close reason says why. A reason starting with `rejected:` names an option the model refused (e.g. a translation target it does not serve, or translation with PII redaction): fix the init body and create a new session.",
          "reasonPrefix": "rejected:"
        },
        {
          "code": 1012,
          "description": "The service is restarting; reconnect to the same URL to resume."
        },
        {
          "code": 4401,
          "description": "Invalid or expired token."
        }
      ],
      "x-handshake-refusals": [
        {
          "status": 429,
          "description": "The account is past its concurrent-session limit; the upgrade is refused."
        }
      ],
      "messages": {
        "audioChunk": {
          "name": "audio_chunk",
          "title": "Audio chunk (JSON)",
          "summary": "Audio bytes as base64. No unknown members.",
          "contentType": "application/json",
          "payload": {
            "type": "object",
            "additionalProperties": false,
            "required": [
              "type",
              "data"
            ],
            "description": "Audio sent as JSON. Binary frames carry the same bytes with a third less overhead.",
            "properties": {
              "type": {
                "type": "string",
                "const": "audio_chunk",
                "x-parser-schema-id": "<anonymous-schema-1>"
              },
              "data": {
                "type": "object",
                "additionalProperties": false,
                "required": [
                  "chunk"
                ],
                "properties": {
                  "chunk": {
                    "type": "string",
                    "contentEncoding": "base64",
                    "minLength": 1,
                    "pattern": "^[A-Za-z0-9+/]*={0,2}$",
                    "description": "Base64 of raw audio in the session's encoding, bit depth, rate and channels.",
                    "x-parser-schema-id": "<anonymous-schema-3>"
                  }
                },
                "title": "AudioChunkMessageData",
                "x-parser-schema-id": "<anonymous-schema-2>"
              }
            },
            "x-parser-schema-id": "AudioChunkMessage"
          },
          "x-direction": "client",
          "x-parser-unique-object-id": "audioChunk"
        },
        "audioChunkBinary": {
          "name": "audio_chunk_binary",
          "title": "Audio chunk (binary frame)",
          "summary": "Raw audio bytes in the session's encoding, bit depth, sample rate and channels.",
          "contentType": "application/octet-stream",
          "payload": {
            "type": "string",
            "format": "binary",
            "title": "AudioChunkBinaryPayload",
            "x-parser-schema-id": "<anonymous-schema-4>"
          },
          "x-direction": "client",
          "x-parser-unique-object-id": "audioChunkBinary"
        },
        "stopRecording": {
          "name": "stop_recording",
          "title": "Stop recording",
          "summary": "No more audio follows.",
          "contentType": "application/json",
          "payload": {
            "type": "object",
            "required": [
              "type"
            ],
            "description": "No more audio follows; the service finishes transcribing and ends the session.",
            "properties": {
              "type": {
                "type": "string",
                "const": "stop_recording",
                "x-parser-schema-id": "<anonymous-schema-5>"
              }
            },
            "x-parser-schema-id": "StopRecordingMessage"
          },
          "x-direction": "client",
          "x-parser-unique-object-id": "stopRecording"
        },
        "startRecording": {
          "name": "start_recording",
          "title": "start_recording",
          "summary": "The WebSocket is connected and audio is accepted.",
          "payload": {
            "type": "object",
            "required": [
              "session_id",
              "created_at",
              "type"
            ],
            "description": "The WebSocket is connected and audio is accepted.",
            "properties": {
              "session_id": {
                "type": "string",
                "format": "uuid",
                "description": "Identifier of the session (the `id` returned by POST /v2/live).",
                "x-parser-schema-id": "SessionId"
              },
              "created_at": {
                "type": "string",
                "format": "date-time",
                "description": "When the message was created (ISO 8601, UTC).",
                "x-parser-schema-id": "Timestamp"
              },
              "type": {
                "type": "string",
                "const": "start_recording",
                "x-parser-schema-id": "<anonymous-schema-6>"
              }
            },
            "x-parser-schema-id": "StartRecordingMessage"
          },
          "x-direction": "server",
          "x-delivery": "both",
          "x-flags": [
            "receive_lifecycle_events"
          ],
          "x-callback": true,
          "x-parser-unique-object-id": "startRecording"
        },
        "transcript": {
          "name": "transcript",
          "title": "transcript",
          "summary": "A partial or final transcript of one utterance.",
          "payload": {
            "type": "object",
            "required": [
              "session_id",
              "created_at",
              "type",
              "data"
            ],
            "description": "A partial or final transcript of one utterance.",
            "properties": {
              "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "type": {
                "type": "string",
                "const": "transcript",
                "x-parser-schema-id": "<anonymous-schema-7>"
              },
              "data": {
                "type": "object",
                "required": [
                  "id",
                  "is_final",
                  "utterance"
                ],
                "properties": {
                  "id": {
                    "type": "string",
                    "description": "Identifier of the utterance; partials and the final of one utterance share it.",
                    "x-parser-schema-id": "<anonymous-schema-9>"
                  },
                  "is_final": {
                    "type": "boolean",
                    "description": "True for the final transcript of the utterance.",
                    "x-parser-schema-id": "<anonymous-schema-10>"
                  },
                  "utterance": {
                    "type": "object",
                    "required": [
                      "start",
                      "end",
                      "confidence",
                      "channel",
                      "words",
                      "text",
                      "language"
                    ],
                    "description": "A stretch of continuous speech on one channel.",
                    "properties": {
                      "start": {
                        "type": "number",
                        "description": "Start time in seconds from the session start.",
                        "x-parser-schema-id": "<anonymous-schema-11>"
                      },
                      "end": {
                        "type": "number",
                        "description": "End time in seconds from the session start.",
                        "x-parser-schema-id": "<anonymous-schema-12>"
                      },
                      "confidence": {
                        "type": "number",
                        "minimum": 0,
                        "maximum": 1,
                        "description": "Confidence between 0 and 1.",
                        "x-parser-schema-id": "<anonymous-schema-13>"
                      },
                      "channel": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "Zero-based audio channel.",
                        "x-parser-schema-id": "<anonymous-schema-14>"
                      },
                      "speaker": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "Zero-based speaker number when diarization is on.",
                        "x-parser-schema-id": "<anonymous-schema-15>"
                      },
                      "words": {
                        "type": "array",
                        "items": {
                          "type": "object",
                          "required": [
                            "word",
                            "start",
                            "end",
                            "confidence"
                          ],
                          "description": "One recognized word with its timing.",
                          "properties": {
                            "word": {
                              "type": "string",
                              "description": "The word as written in the transcript.",
                              "x-parser-schema-id": "<anonymous-schema-17>"
                            },
                            "start": {
                              "type": "number",
                              "description": "Start time in seconds from the session start, from the model's cross-attention alignment (see `realtime_processing.words_accurate_timestamps`). Words of a channel never overlap and keep their times once committed; punctuation takes no time of its own.",
                              "x-parser-schema-id": "<anonymous-schema-18>"
                            },
                            "end": {
                              "type": "number",
                              "description": "End time in seconds from the session start.",
                              "x-parser-schema-id": "<anonymous-schema-19>"
                            },
                            "confidence": {
                              "type": "number",
                              "minimum": 0,
                              "maximum": 1,
                              "description": "Confidence between 0 and 1: the geometric mean of the probabilities the decoder gave the word's tokens (punctuation attached to the word included).",
                              "x-parser-schema-id": "<anonymous-schema-20>"
                            }
                          },
                          "x-parser-schema-id": "Word"
                        },
                        "description": "Words of the utterance.",
                        "x-parser-schema-id": "<anonymous-schema-16>"
                      },
                      "text": {
                        "type": "string",
                        "description": "Text of the utterance.",
                        "x-parser-schema-id": "<anonymous-schema-21>"
                      },
                      "language": {
                        "type": "string",
                        "description": "Language code of the utterance.",
                        "x-parser-schema-id": "<anonymous-schema-22>"
                      }
                    },
                    "x-parser-schema-id": "Utterance"
                  }
                },
                "title": "TranscriptMessageData",
                "x-parser-schema-id": "<anonymous-schema-8>"
              }
            },
            "x-parser-schema-id": "TranscriptMessage"
          },
          "x-direction": "server",
          "x-delivery": "both",
          "x-flags": [
            "receive_partial_transcripts",
            "receive_final_transcripts"
          ],
          "x-callback": true,
          "x-parser-unique-object-id": "transcript"
        },
        "speechStart": {
          "name": "speech_start",
          "title": "speech_start",
          "summary": "Speech began on a channel.",
          "payload": {
            "type": "object",
            "required": [
              "session_id",
              "created_at",
              "type",
              "data"
            ],
            "description": "Speech began on a channel.",
            "properties": {
              "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "type": {
                "type": "string",
                "const": "speech_start",
                "x-parser-schema-id": "<anonymous-schema-23>"
              },
              "data": {
                "type": "object",
                "required": [
                  "time",
                  "channel"
                ],
                "description": "When speech started or ended.",
                "properties": {
                  "time": {
                    "type": "number",
                    "description": "Seconds from the session start.",
                    "x-parser-schema-id": "<anonymous-schema-24>"
                  },
                  "channel": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "Zero-based audio channel.",
                    "x-parser-schema-id": "<anonymous-schema-25>"
                  }
                },
                "x-parser-schema-id": "SpeechEventData"
              }
            },
            "x-parser-schema-id": "SpeechStartMessage"
          },
          "x-direction": "server",
          "x-delivery": "both",
          "x-flags": [
            "receive_speech_events"
          ],
          "x-callback": true,
          "x-parser-unique-object-id": "speechStart"
        },
        "speechEnd": {
          "name": "speech_end",
          "title": "speech_end",
          "summary": "Speech ended on a channel.",
          "payload": {
            "type": "object",
            "required": [
              "session_id",
              "created_at",
              "type",
              "data"
            ],
            "description": "Speech ended on a channel.",
            "properties": {
              "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "type": {
                "type": "string",
                "const": "speech_end",
                "x-parser-schema-id": "<anonymous-schema-26>"
              },
              "data": "$ref:$.channels.liveSession.messages.speechStart.payload.properties.data"
            },
            "x-parser-schema-id": "SpeechEndMessage"
          },
          "x-direction": "server",
          "x-delivery": "both",
          "x-flags": [
            "receive_speech_events"
          ],
          "x-callback": true,
          "x-parser-unique-object-id": "speechEnd"
        },
        "namedEntityRecognition": {
          "name": "named_entity_recognition",
          "title": "named_entity_recognition",
          "summary": "Entities found in a final utterance.",
          "payload": {
            "type": "object",
            "required": [
              "session_id",
              "created_at",
              "type",
              "error",
              "data"
            ],
            "description": "Entities found in a final utterance.",
            "properties": {
              "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "type": {
                "type": "string",
                "const": "named_entity_recognition",
                "x-parser-schema-id": "<anonymous-schema-27>"
              },
              "error": {
                "description": "What failed while producing an add-on message, or null.",
                "oneOf": [
                  {
                    "type": "object",
                    "required": [
                      "message"
                    ],
                    "properties": {
                      "message": {
                        "type": "string",
                        "x-parser-schema-id": "<anonymous-schema-29>"
                      }
                    },
                    "title": "MessageError",
                    "x-parser-schema-id": "<anonymous-schema-28>"
                  },
                  {
                    "type": "null",
                    "x-parser-schema-id": "<anonymous-schema-30>"
                  }
                ],
                "x-parser-schema-id": "MessageError"
              },
              "data": {
                "oneOf": [
                  {
                    "type": "null",
                    "x-parser-schema-id": "<anonymous-schema-32>"
                  },
                  {
                    "type": "object",
                    "required": [
                      "utterance_id",
                      "utterance",
                      "results"
                    ],
                    "properties": {
                      "utterance_id": {
                        "type": "string",
                        "x-parser-schema-id": "<anonymous-schema-34>"
                      },
                      "utterance": "$ref:$.channels.liveSession.messages.transcript.payload.properties.data.properties.utterance",
                      "results": {
                        "type": "array",
                        "items": {
                          "description": "An entity found by named entity recognition; `entity_type` repeats `label` for clients of the hosted variant.",
                          "allOf": [
                            {
                              "type": "object",
                              "description": "A named entity or personal-data item. Extra members may appear.",
                              "properties": {
                                "label": {
                                  "type": [
                                    "string",
                                    "null"
                                  ],
                                  "default": null,
                                  "description": "Entity type, e.g. `name`, `phone_number`, `location_city`.",
                                  "x-parser-schema-id": "<anonymous-schema-36>"
                                },
                                "id": {
                                  "type": [
                                    "integer",
                                    "null"
                                  ],
                                  "default": null,
                                  "description": "Number of the entity within the session, per type; the same entity keeps its number.",
                                  "x-parser-schema-id": "<anonymous-schema-37>"
                                },
                                "action": {
                                  "type": [
                                    "string",
                                    "null"
                                  ],
                                  "default": null,
                                  "description": "`ner` when only tagged, otherwise how the data was redacted.",
                                  "x-parser-schema-id": "<anonymous-schema-38>"
                                },
                                "score": {
                                  "type": [
                                    "number",
                                    "null"
                                  ],
                                  "minimum": 0,
                                  "maximum": 1,
                                  "default": null,
                                  "description": "Confidence between 0 and 1.",
                                  "x-parser-schema-id": "<anonymous-schema-39>"
                                },
                                "text": {
                                  "type": [
                                    "string",
                                    "null"
                                  ],
                                  "default": null,
                                  "description": "The entity as heard; absent for masked data unless `pii.return_entities` is set.",
                                  "x-parser-schema-id": "<anonymous-schema-40>"
                                },
                                "start": {
                                  "type": [
                                    "integer",
                                    "null"
                                  ],
                                  "default": null,
                                  "description": "Start offset of the entity in the utterance text, in characters.",
                                  "x-parser-schema-id": "<anonymous-schema-41>"
                                },
                                "end": {
                                  "type": [
                                    "integer",
                                    "null"
                                  ],
                                  "default": null,
                                  "description": "End offset (excluded) in characters.",
                                  "x-parser-schema-id": "<anonymous-schema-42>"
                                }
                              },
                              "x-parser-schema-id": "Entity"
                            },
                            {
                              "type": "object",
                              "required": [
                                "entity_type",
                                "text",
                                "start",
                                "end"
                              ],
                              "properties": {
                                "entity_type": {
                                  "type": "string",
                                  "description": "Same value as `label`.",
                                  "x-parser-schema-id": "<anonymous-schema-44>"
                                }
                              },
                              "title": "NamedEntity",
                              "x-parser-schema-id": "<anonymous-schema-43>"
                            }
                          ],
                          "x-parser-schema-id": "NamedEntity"
                        },
                        "x-parser-schema-id": "<anonymous-schema-35>"
                      }
                    },
                    "title": "NamedEntityRecognitionMessageData",
                    "x-parser-schema-id": "<anonymous-schema-33>"
                  }
                ],
                "title": "NullableNamedEntityRecognitionMessageData",
                "x-parser-schema-id": "<anonymous-schema-31>"
              }
            },
            "x-parser-schema-id": "NamedEntityRecognitionMessage"
          },
          "x-direction": "server",
          "x-delivery": "both",
          "x-flags": [
            "receive_realtime_processing_events"
          ],
          "x-callback": true,
          "x-parser-unique-object-id": "namedEntityRecognition"
        },
        "pii": {
          "name": "pii",
          "title": "pii",
          "summary": "Personal data found and redacted in a final utterance.",
          "payload": {
            "type": "object",
            "required": [
              "session_id",
              "created_at",
              "type",
              "data"
            ],
            "description": "Personal data found and redacted in a final utterance. Sent on the WebSocket only. The utterance carries the redacted text; `text` of masked entities is present only when `pii.return_entities` is set.",
            "properties": {
              "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "type": {
                "type": "string",
                "const": "pii",
                "x-parser-schema-id": "<anonymous-schema-45>"
              },
              "data": {
                "type": "object",
                "required": [
                  "utterance_id",
                  "utterance",
                  "entities"
                ],
                "properties": {
                  "utterance_id": {
                    "type": "string",
                    "x-parser-schema-id": "<anonymous-schema-47>"
                  },
                  "utterance": "$ref:$.channels.liveSession.messages.transcript.payload.properties.data.properties.utterance",
                  "entities": {
                    "type": "array",
                    "items": "$ref:$.channels.liveSession.messages.namedEntityRecognition.payload.properties.data.oneOf[1].properties.results.items.allOf[0]",
                    "x-parser-schema-id": "<anonymous-schema-48>"
                  }
                },
                "title": "PiiMessageData",
                "x-parser-schema-id": "<anonymous-schema-46>"
              }
            },
            "x-parser-schema-id": "PiiMessage"
          },
          "x-direction": "server",
          "x-delivery": "websocket-only",
          "x-flags": [],
          "x-callback": false,
          "x-parser-unique-object-id": "pii"
        },
        "sentimentAnalysis": {
          "name": "sentiment_analysis",
          "title": "sentiment_analysis",
          "summary": "Sentiment of a final utterance.",
          "payload": {
            "type": "object",
            "required": [
              "session_id",
              "created_at",
              "type",
              "error",
              "data"
            ],
            "description": "Sentiment of a final utterance.",
            "properties": {
              "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "type": {
                "type": "string",
                "const": "sentiment_analysis",
                "x-parser-schema-id": "<anonymous-schema-49>"
              },
              "error": "$ref:$.channels.liveSession.messages.namedEntityRecognition.payload.properties.error",
              "data": {
                "oneOf": [
                  {
                    "type": "null",
                    "x-parser-schema-id": "<anonymous-schema-51>"
                  },
                  {
                    "type": "object",
                    "required": [
                      "utterance_id",
                      "utterance",
                      "results"
                    ],
                    "properties": {
                      "utterance_id": {
                        "type": "string",
                        "x-parser-schema-id": "<anonymous-schema-53>"
                      },
                      "utterance": "$ref:$.channels.liveSession.messages.transcript.payload.properties.data.properties.utterance",
                      "results": {
                        "type": "array",
                        "items": {
                          "type": "object",
                          "required": [
                            "sentiment",
                            "emotion",
                            "text",
                            "start",
                            "end",
                            "channel"
                          ],
                          "description": "Sentiment of a part of an utterance.",
                          "properties": {
                            "sentiment": {
                              "type": "string",
                              "description": "`positive`, `negative`, `neutral` or `mixed`.",
                              "x-parser-schema-id": "<anonymous-schema-55>"
                            },
                            "emotion": {
                              "type": "string",
                              "description": "Dominant emotion.",
                              "x-parser-schema-id": "<anonymous-schema-56>"
                            },
                            "text": {
                              "type": "string",
                              "description": "Text the sentiment applies to.",
                              "x-parser-schema-id": "<anonymous-schema-57>"
                            },
                            "start": {
                              "type": "number",
                              "description": "Start time in seconds.",
                              "x-parser-schema-id": "<anonymous-schema-58>"
                            },
                            "end": {
                              "type": "number",
                              "description": "End time in seconds.",
                              "x-parser-schema-id": "<anonymous-schema-59>"
                            },
                            "channel": {
                              "type": "integer",
                              "minimum": 0,
                              "description": "Zero-based audio channel.",
                              "x-parser-schema-id": "<anonymous-schema-60>"
                            }
                          },
                          "x-parser-schema-id": "SentimentResult"
                        },
                        "x-parser-schema-id": "<anonymous-schema-54>"
                      }
                    },
                    "title": "SentimentAnalysisMessageData",
                    "x-parser-schema-id": "<anonymous-schema-52>"
                  }
                ],
                "title": "NullableSentimentAnalysisMessageData",
                "x-parser-schema-id": "<anonymous-schema-50>"
              }
            },
            "x-parser-schema-id": "SentimentAnalysisMessage"
          },
          "x-direction": "server",
          "x-delivery": "both",
          "x-flags": [
            "receive_realtime_processing_events"
          ],
          "x-callback": true,
          "x-parser-unique-object-id": "sentimentAnalysis"
        },
        "translation": {
          "name": "translation",
          "title": "translation",
          "summary": "A final utterance translated into one target language.",
          "payload": {
            "type": "object",
            "required": [
              "session_id",
              "created_at",
              "type",
              "error",
              "data"
            ],
            "description": "A final utterance translated into one target language.",
            "properties": {
              "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "type": {
                "type": "string",
                "const": "translation",
                "x-parser-schema-id": "<anonymous-schema-61>"
              },
              "error": "$ref:$.channels.liveSession.messages.namedEntityRecognition.payload.properties.error",
              "data": {
                "oneOf": [
                  {
                    "type": "null",
                    "x-parser-schema-id": "<anonymous-schema-63>"
                  },
                  {
                    "type": "object",
                    "required": [
                      "utterance_id",
                      "utterance",
                      "original_language",
                      "target_language",
                      "translated_utterance"
                    ],
                    "properties": {
                      "utterance_id": {
                        "type": "string",
                        "x-parser-schema-id": "<anonymous-schema-65>"
                      },
                      "utterance": "$ref:$.channels.liveSession.messages.transcript.payload.properties.data.properties.utterance",
                      "original_language": {
                        "type": "string",
                        "x-parser-schema-id": "<anonymous-schema-66>"
                      },
                      "target_language": {
                        "type": "string",
                        "description": "Language code of a translation target.",
                        "enum": [
                          "af",
                          "am",
                          "ar",
                          "as",
                          "be",
                          "bg",
                          "bn",
                          "ca",
                          "da",
                          "de",
                          "en",
                          "es",
                          "fa",
                          "fr",
                          "gl",
                          "id",
                          "it",
                          "ja",
                          "km",
                          "ko",
                          "ln",
                          "lo",
                          "ms",
                          "my",
                          "ne",
                          "nl",
                          "no",
                          "ps",
                          "pt",
                          "ro",
                          "ru",
                          "so",
                          "sv",
                          "th",
                          "vi",
                          "wo",
                          "yo",
                          "zh"
                        ],
                        "x-parser-schema-id": "TranslationLanguageCode"
                      },
                      "translated_utterance": "$ref:$.channels.liveSession.messages.transcript.payload.properties.data.properties.utterance"
                    },
                    "title": "TranslationMessageData",
                    "x-parser-schema-id": "<anonymous-schema-64>"
                  }
                ],
                "title": "NullableTranslationMessageData",
                "x-parser-schema-id": "<anonymous-schema-62>"
              }
            },
            "x-parser-schema-id": "TranslationMessage"
          },
          "x-direction": "server",
          "x-delivery": "both",
          "x-flags": [
            "receive_realtime_processing_events"
          ],
          "x-callback": true,
          "x-parser-unique-object-id": "translation"
        },
        "endOfTurn": {
          "name": "end_of_turn",
          "title": "end_of_turn",
          "summary": "The speaker finished their turn.",
          "payload": {
            "type": "object",
            "required": [
              "session_id",
              "created_at",
              "type",
              "data"
            ],
            "description": "The speaker finished their turn; a voice agent may answer. Sent on the WebSocket only.",
            "properties": {
              "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "type": {
                "type": "string",
                "const": "end_of_turn",
                "x-parser-schema-id": "<anonymous-schema-67>"
              },
              "data": {
                "type": "object",
                "required": [
                  "channel",
                  "probability",
                  "reason",
                  "end",
                  "speech_duration"
                ],
                "properties": {
                  "channel": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "Zero-based audio channel.",
                    "x-parser-schema-id": "<anonymous-schema-69>"
                  },
                  "probability": {
                    "type": [
                      "number",
                      "null"
                    ],
                    "minimum": 0,
                    "maximum": 1,
                    "description": "Probability that the speaker finished.",
                    "x-parser-schema-id": "<anonymous-schema-70>"
                  },
                  "reason": {
                    "oneOf": [
                      {
                        "type": "string",
                        "enum": [
                          "model",
                          "timeout"
                        ],
                        "title": "EndOfTurnMessageDataReason",
                        "x-parser-schema-id": "<anonymous-schema-72>"
                      },
                      {
                        "type": "null",
                        "x-parser-schema-id": "<anonymous-schema-73>"
                      }
                    ],
                    "description": "`model`: the probability crossed the threshold; `timeout`: the silence reached `stop_s`.",
                    "title": "NullableEndOfTurnMessageDataReason",
                    "x-parser-schema-id": "<anonymous-schema-71>"
                  },
                  "end": {
                    "type": [
                      "number",
                      "null"
                    ],
                    "description": "Seconds from the session start when the turn ended.",
                    "x-parser-schema-id": "<anonymous-schema-74>"
                  },
                  "speech_duration": {
                    "type": [
                      "number",
                      "null"
                    ],
                    "minimum": 0,
                    "description": "Seconds of speech in the turn.",
                    "x-parser-schema-id": "<anonymous-schema-75>"
                  }
                },
                "title": "EndOfTurnMessageData",
                "x-parser-schema-id": "<anonymous-schema-68>"
              }
            },
            "x-parser-schema-id": "EndOfTurnMessage"
          },
          "x-direction": "server",
          "x-delivery": "websocket-only",
          "x-flags": [],
          "x-callback": false,
          "x-parser-unique-object-id": "endOfTurn"
        },
        "endOfTurnScore": {
          "name": "end_of_turn_score",
          "title": "end_of_turn_score",
          "summary": "One end-of-turn evaluation, sent when end_of_turn.emit_scores is true.",
          "payload": {
            "type": "object",
            "required": [
              "session_id",
              "created_at",
              "type",
              "data"
            ],
            "description": "One end-of-turn evaluation; sent only when `end_of_turn.emit_scores` is true.",
            "properties": {
              "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "type": {
                "type": "string",
                "const": "end_of_turn_score",
                "x-parser-schema-id": "<anonymous-schema-76>"
              },
              "data": {
                "type": "object",
                "required": [
                  "channel",
                  "probability",
                  "threshold",
                  "silence_ms",
                  "time",
                  "ended"
                ],
                "properties": {
                  "channel": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "Zero-based audio channel.",
                    "x-parser-schema-id": "<anonymous-schema-78>"
                  },
                  "probability": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": 1,
                    "description": "Probability that the speaker finished.",
                    "x-parser-schema-id": "<anonymous-schema-79>"
                  },
                  "threshold": {
                    "type": "number",
                    "description": "Threshold in force for this evaluation.",
                    "x-parser-schema-id": "<anonymous-schema-80>"
                  },
                  "silence_ms": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "Milliseconds of silence at the evaluation.",
                    "x-parser-schema-id": "<anonymous-schema-81>"
                  },
                  "time": {
                    "type": "number",
                    "description": "Seconds from the session start of the evaluation.",
                    "x-parser-schema-id": "<anonymous-schema-82>"
                  },
                  "ended": {
                    "type": "boolean",
                    "description": "True when this evaluation ended the turn.",
                    "x-parser-schema-id": "<anonymous-schema-83>"
                  }
                },
                "title": "EndOfTurnScoreMessageData",
                "x-parser-schema-id": "<anonymous-schema-77>"
              }
            },
            "x-parser-schema-id": "EndOfTurnScoreMessage"
          },
          "x-direction": "server",
          "x-delivery": "websocket-only",
          "x-flags": [],
          "x-callback": false,
          "x-parser-unique-object-id": "endOfTurnScore"
        },
        "audioChunkAck": {
          "name": "audio_chunk",
          "title": "audio_chunk",
          "summary": "The audio up to a byte and millisecond offset is transcribed.",
          "payload": {
            "type": "object",
            "additionalProperties": false,
            "required": [
              "session_id",
              "created_at",
              "type",
              "acknowledged",
              "data"
            ],
            "description": "Audio up to `data.byte_range[1]` has been transcribed and stored; a client may drop it from its resend buffer. Sent once transcribed, not on receipt. While an utterance is spoken it counts as transcribed up to the end of its committed words (with partial transcripts on: the words every later partial and its final start with), and up to a pause in its speech once that pause has been decoded, so its acknowledgments may come before its final transcript (which waits for the endpointing window); the service keeps the audio until the final is out, so a resume after a dropped connection or a restart loses nothing.",
            "properties": {
              "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "type": {
                "type": "string",
                "const": "audio_chunk",
                "x-parser-schema-id": "<anonymous-schema-84>"
              },
              "acknowledged": {
                "type": "boolean",
                "x-parser-schema-id": "<anonymous-schema-85>"
              },
              "error": {
                "default": null,
                "description": "What failed, or null.",
                "x-parser-schema-id": "<anonymous-schema-86>"
              },
              "data": {
                "type": "object",
                "additionalProperties": false,
                "required": [
                  "byte_range",
                  "time_range"
                ],
                "properties": {
                  "byte_range": {
                    "type": "array",
                    "minItems": 2,
                    "maxItems": 2,
                    "items": {
                      "type": "integer",
                      "minimum": 0,
                      "x-parser-schema-id": "<anonymous-schema-89>"
                    },
                    "description": "First and last (excluded) byte of the acknowledged audio, counted from the session start.",
                    "x-parser-schema-id": "<anonymous-schema-88>"
                  },
                  "time_range": {
                    "type": "array",
                    "minItems": 2,
                    "maxItems": 2,
                    "items": {
                      "type": "integer",
                      "minimum": 0,
                      "x-parser-schema-id": "<anonymous-schema-91>"
                    },
                    "description": "The same range in milliseconds.",
                    "x-parser-schema-id": "<anonymous-schema-90>"
                  }
                },
                "title": "AudioChunkAckMessageData",
                "x-parser-schema-id": "<anonymous-schema-87>"
              }
            },
            "x-parser-schema-id": "AudioChunkAckMessage"
          },
          "x-direction": "server",
          "x-delivery": "both",
          "x-flags": [
            "receive_acknowledgments"
          ],
          "x-callback": true,
          "x-parser-unique-object-id": "audioChunkAck"
        },
        "stopRecordingAck": {
          "name": "stop_recording",
          "title": "stop_recording",
          "summary": "stop_recording was received.",
          "payload": {
            "type": "object",
            "required": [
              "session_id",
              "created_at",
              "type",
              "acknowledged",
              "error",
              "data"
            ],
            "description": "The `stop_recording` request was received.",
            "properties": {
              "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "type": {
                "type": "string",
                "const": "stop_recording",
                "x-parser-schema-id": "<anonymous-schema-92>"
              },
              "acknowledged": {
                "type": "boolean",
                "x-parser-schema-id": "<anonymous-schema-93>"
              },
              "error": "$ref:$.channels.liveSession.messages.namedEntityRecognition.payload.properties.error",
              "data": {
                "oneOf": [
                  {
                    "type": "null",
                    "x-parser-schema-id": "<anonymous-schema-95>"
                  },
                  {
                    "type": "object",
                    "required": [
                      "recording_duration",
                      "recording_left_to_process"
                    ],
                    "properties": {
                      "recording_duration": {
                        "type": "number",
                        "minimum": 0,
                        "description": "Seconds of audio received.",
                        "x-parser-schema-id": "<anonymous-schema-97>"
                      },
                      "recording_left_to_process": {
                        "type": "number",
                        "minimum": 0,
                        "description": "Seconds of audio still to transcribe.",
                        "x-parser-schema-id": "<anonymous-schema-98>"
                      }
                    },
                    "title": "StopRecordingAckMessageData",
                    "x-parser-schema-id": "<anonymous-schema-96>"
                  }
                ],
                "title": "NullableStopRecordingAckMessageData",
                "x-parser-schema-id": "<anonymous-schema-94>"
              }
            },
            "x-parser-schema-id": "StopRecordingAckMessage"
          },
          "x-direction": "server",
          "x-delivery": "both",
          "x-flags": [
            "receive_acknowledgments"
          ],
          "x-callback": true,
          "x-parser-unique-object-id": "stopRecordingAck"
        },
        "endRecording": {
          "name": "end_recording",
          "title": "end_recording",
          "summary": "No more audio is accepted.",
          "payload": {
            "type": "object",
            "required": [
              "session_id",
              "created_at",
              "type",
              "data"
            ],
            "description": "No more audio is accepted.",
            "properties": {
              "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "type": {
                "type": "string",
                "const": "end_recording",
                "x-parser-schema-id": "<anonymous-schema-99>"
              },
              "data": {
                "type": "object",
                "required": [
                  "recording_duration"
                ],
                "properties": {
                  "recording_duration": {
                    "type": "number",
                    "minimum": 0,
                    "description": "Seconds of audio received.",
                    "x-parser-schema-id": "<anonymous-schema-101>"
                  }
                },
                "title": "EndRecordingMessageData",
                "x-parser-schema-id": "<anonymous-schema-100>"
              }
            },
            "x-parser-schema-id": "EndRecordingMessage"
          },
          "x-direction": "server",
          "x-delivery": "both",
          "x-flags": [
            "receive_lifecycle_events"
          ],
          "x-callback": true,
          "x-parser-unique-object-id": "endRecording"
        },
        "postTranscript": {
          "name": "post_transcript",
          "title": "post_transcript",
          "summary": "The transcript of the whole session.",
          "payload": {
            "type": "object",
            "required": [
              "session_id",
              "created_at",
              "type",
              "data"
            ],
            "description": "The transcript of the whole session.",
            "properties": {
              "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "type": {
                "type": "string",
                "const": "post_transcript",
                "x-parser-schema-id": "<anonymous-schema-102>"
              },
              "data": {
                "type": "object",
                "required": [
                  "full_transcript",
                  "languages",
                  "utterances"
                ],
                "description": "Transcript of a whole session.",
                "properties": {
                  "full_transcript": {
                    "type": "string",
                    "description": "All final utterances joined.",
                    "x-parser-schema-id": "<anonymous-schema-103>"
                  },
                  "languages": {
                    "type": "array",
                    "items": {
                      "type": "string",
                      "x-parser-schema-id": "<anonymous-schema-105>"
                    },
                    "description": "Languages heard.",
                    "x-parser-schema-id": "<anonymous-schema-104>"
                  },
                  "sentences": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "required": [
                        "success",
                        "is_empty",
                        "exec_time",
                        "error",
                        "results"
                      ],
                      "description": "Sentences produced from the transcript.",
                      "properties": {
                        "success": {
                          "type": "boolean",
                          "x-parser-schema-id": "<anonymous-schema-107>"
                        },
                        "is_empty": {
                          "type": "boolean",
                          "x-parser-schema-id": "<anonymous-schema-108>"
                        },
                        "exec_time": {
                          "type": "number",
                          "x-parser-schema-id": "<anonymous-schema-109>"
                        },
                        "error": {
                          "oneOf": [
                            {
                              "type": "object",
                              "required": [
                                "status_code",
                                "exception",
                                "message"
                              ],
                              "description": "Why an add-on failed.",
                              "properties": {
                                "status_code": {
                                  "type": "integer",
                                  "description": "HTTP-like status of the failure.",
                                  "x-parser-schema-id": "<anonymous-schema-111>"
                                },
                                "exception": {
                                  "type": "string",
                                  "description": "Short name of the failure.",
                                  "x-parser-schema-id": "<anonymous-schema-112>"
                                },
                                "message": {
                                  "type": "string",
                                  "description": "Human-readable explanation.",
                                  "x-parser-schema-id": "<anonymous-schema-113>"
                                }
                              },
                              "x-parser-schema-id": "AddonError"
                            },
                            {
                              "type": "null",
                              "x-parser-schema-id": "<anonymous-schema-114>"
                            }
                          ],
                          "title": "NullableSentenceError",
                          "x-parser-schema-id": "<anonymous-schema-110>"
                        },
                        "results": {
                          "type": [
                            "array",
                            "null"
                          ],
                          "items": {
                            "type": "string",
                            "x-parser-schema-id": "<anonymous-schema-116>"
                          },
                          "x-parser-schema-id": "<anonymous-schema-115>"
                        }
                      },
                      "x-parser-schema-id": "Sentence"
                    },
                    "x-parser-schema-id": "<anonymous-schema-106>"
                  },
                  "subtitles": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "required": [
                        "format",
                        "subtitles"
                      ],
                      "description": "Subtitles of the transcript in one format.",
                      "properties": {
                        "format": {
                          "type": "string",
                          "enum": [
                            "srt",
                            "vtt"
                          ],
                          "title": "SubtitleFormat",
                          "x-parser-schema-id": "<anonymous-schema-118>"
                        },
                        "subtitles": {
                          "type": "string",
                          "x-parser-schema-id": "<anonymous-schema-119>"
                        }
                      },
                      "x-parser-schema-id": "Subtitle"
                    },
                    "x-parser-schema-id": "<anonymous-schema-117>"
                  },
                  "utterances": {
                    "type": "array",
                    "items": "$ref:$.channels.liveSession.messages.transcript.payload.properties.data.properties.utterance",
                    "description": "Final utterances in time order.",
                    "x-parser-schema-id": "<anonymous-schema-120>"
                  }
                },
                "x-parser-schema-id": "Transcription"
              }
            },
            "x-parser-schema-id": "PostTranscriptMessage"
          },
          "x-direction": "server",
          "x-delivery": "both",
          "x-flags": [
            "receive_post_processing_events"
          ],
          "x-callback": true,
          "x-parser-unique-object-id": "postTranscript"
        },
        "postFinalTranscript": {
          "name": "post_final_transcript",
          "title": "post_final_transcript",
          "summary": "Everything the session produced.",
          "payload": {
            "type": "object",
            "required": [
              "session_id",
              "created_at",
              "type",
              "data"
            ],
            "description": "Everything the session produced, as stored in the session's `result`.",
            "properties": {
              "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "type": {
                "type": "string",
                "const": "post_final_transcript",
                "x-parser-schema-id": "<anonymous-schema-121>"
              },
              "data": {
                "type": "object",
                "required": [
                  "metadata"
                ],
                "description": "Everything a finished session produced.",
                "properties": {
                  "metadata": {
                    "type": "object",
                    "required": [
                      "audio_duration",
                      "number_of_distinct_channels",
                      "billing_time",
                      "transcription_time"
                    ],
                    "description": "Figures about a finished session.",
                    "properties": {
                      "audio_duration": {
                        "type": "number",
                        "description": "Seconds of audio received.",
                        "x-parser-schema-id": "<anonymous-schema-122>"
                      },
                      "number_of_distinct_channels": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Channels in the audio.",
                        "x-parser-schema-id": "<anonymous-schema-123>"
                      },
                      "billing_time": {
                        "type": "number",
                        "description": "Seconds billed.",
                        "x-parser-schema-id": "<anonymous-schema-124>"
                      },
                      "transcription_time": {
                        "type": "number",
                        "description": "Seconds spent transcribing: per final utterance, from the request to the result of the decodes its final transcript comes from. In a live session with partial transcripts, the partial decodes before the final, speculative decodes that did not become the final and decodes given up are not counted.",
                        "x-parser-schema-id": "<anonymous-schema-125>"
                      }
                    },
                    "x-parser-schema-id": "TranscriptionMetadata"
                  },
                  "transcription": "$ref:$.channels.liveSession.messages.postTranscript.payload.properties.data",
                  "translation": {
                    "description": "Translations per target language.",
                    "allOf": [
                      {
                        "type": "object",
                        "required": [
                          "success",
                          "is_empty",
                          "exec_time",
                          "error"
                        ],
                        "description": "Common members of a post-session add-on result.",
                        "properties": {
                          "success": {
                            "type": "boolean",
                            "x-parser-schema-id": "<anonymous-schema-127>"
                          },
                          "is_empty": {
                            "type": "boolean",
                            "x-parser-schema-id": "<anonymous-schema-128>"
                          },
                          "exec_time": {
                            "type": "number",
                            "description": "Seconds spent.",
                            "x-parser-schema-id": "<anonymous-schema-129>"
                          },
                          "error": {
                            "oneOf": [
                              "$ref:$.channels.liveSession.messages.postTranscript.payload.properties.data.properties.sentences.items.properties.error.oneOf[0]",
                              {
                                "type": "null",
                                "x-parser-schema-id": "<anonymous-schema-131>"
                              }
                            ],
                            "title": "NullableAddonResultError",
                            "x-parser-schema-id": "<anonymous-schema-130>"
                          }
                        },
                        "x-parser-schema-id": "AddonResult"
                      },
                      {
                        "type": "object",
                        "required": [
                          "results"
                        ],
                        "properties": {
                          "results": {
                            "type": [
                              "array",
                              "null"
                            ],
                            "items": {
                              "type": "object",
                              "required": [
                                "error",
                                "full_transcript",
                                "languages",
                                "utterances"
                              ],
                              "description": "The transcript translated into one target language.",
                              "properties": {
                                "error": {
                                  "oneOf": [
                                    "$ref:$.channels.liveSession.messages.postTranscript.payload.properties.data.properties.sentences.items.properties.error.oneOf[0]",
                                    {
                                      "type": "null",
                                      "x-parser-schema-id": "<anonymous-schema-135>"
                                    }
                                  ],
                                  "title": "NullableTranslatedTranscriptionError",
                                  "x-parser-schema-id": "<anonymous-schema-134>"
                                },
                                "full_transcript": {
                                  "type": "string",
                                  "x-parser-schema-id": "<anonymous-schema-136>"
                                },
                                "languages": {
                                  "type": "array",
                                  "items": {
                                    "type": "string",
                                    "x-parser-schema-id": "<anonymous-schema-138>"
                                  },
                                  "x-parser-schema-id": "<anonymous-schema-137>"
                                },
                                "utterances": {
                                  "type": "array",
                                  "items": "$ref:$.channels.liveSession.messages.transcript.payload.properties.data.properties.utterance",
                                  "x-parser-schema-id": "<anonymous-schema-139>"
                                }
                              },
                              "x-parser-schema-id": "TranslatedTranscription"
                            },
                            "x-parser-schema-id": "<anonymous-schema-133>"
                          }
                        },
                        "title": "TranscriptionResultTranslation",
                        "x-parser-schema-id": "<anonymous-schema-132>"
                      }
                    ],
                    "title": "TranscriptionResultTranslation",
                    "x-parser-schema-id": "<anonymous-schema-126>"
                  },
                  "named_entity_recognition": {
                    "description": "Entities of the whole session.",
                    "allOf": [
                      "$ref:$.channels.liveSession.messages.postFinalTranscript.payload.properties.data.properties.translation.allOf[0]",
                      {
                        "type": "object",
                        "required": [
                          "entity",
                          "results"
                        ],
                        "properties": {
                          "entity": {
                            "type": "string",
                            "description": "The entities as a JSON string, as the hosted variant sends them.",
                            "x-parser-schema-id": "<anonymous-schema-142>"
                          },
                          "results": {
                            "type": [
                              "array",
                              "null"
                            ],
                            "items": "$ref:$.channels.liveSession.messages.namedEntityRecognition.payload.properties.data.oneOf[1].properties.results.items",
                            "x-parser-schema-id": "<anonymous-schema-143>"
                          }
                        },
                        "title": "TranscriptionResultNamedEntityRecognition",
                        "x-parser-schema-id": "<anonymous-schema-141>"
                      }
                    ],
                    "title": "TranscriptionResultNamedEntityRecognition",
                    "x-parser-schema-id": "<anonymous-schema-140>"
                  },
                  "sentiment_analysis": {
                    "description": "Sentiment of the whole session, as a JSON string.",
                    "allOf": [
                      "$ref:$.channels.liveSession.messages.postFinalTranscript.payload.properties.data.properties.translation.allOf[0]",
                      {
                        "type": "object",
                        "required": [
                          "results"
                        ],
                        "properties": {
                          "results": {
                            "type": [
                              "string",
                              "null"
                            ],
                            "x-parser-schema-id": "<anonymous-schema-146>"
                          }
                        },
                        "title": "TranscriptionResultSentimentAnalysis",
                        "x-parser-schema-id": "<anonymous-schema-145>"
                      }
                    ],
                    "title": "TranscriptionResultSentimentAnalysis",
                    "x-parser-schema-id": "<anonymous-schema-144>"
                  }
                },
                "x-parser-schema-id": "TranscriptionResult"
              }
            },
            "x-parser-schema-id": "PostFinalTranscriptMessage"
          },
          "x-direction": "server",
          "x-delivery": "both",
          "x-flags": [
            "receive_post_processing_events"
          ],
          "x-callback": true,
          "x-parser-unique-object-id": "postFinalTranscript"
        },
        "endSession": {
          "name": "end_session",
          "title": "end_session",
          "summary": "The last message; the connection closes after it.",
          "payload": {
            "type": "object",
            "required": [
              "session_id",
              "created_at",
              "type"
            ],
            "description": "The last message; the service closes the WebSocket after it.",
            "properties": {
              "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "type": {
                "type": "string",
                "const": "end_session",
                "x-parser-schema-id": "<anonymous-schema-147>"
              }
            },
            "x-parser-schema-id": "EndSessionMessage"
          },
          "x-direction": "server",
          "x-delivery": "both",
          "x-flags": [
            "receive_lifecycle_events"
          ],
          "x-callback": true,
          "x-parser-unique-object-id": "endSession"
        },
        "error": {
          "name": "error",
          "title": "error",
          "summary": "Something failed during the session.",
          "payload": {
            "type": "object",
            "required": [
              "type"
            ],
            "description": "Something failed during the session. Extra members may appear.",
            "properties": {
              "type": {
                "type": "string",
                "const": "error",
                "x-parser-schema-id": "<anonymous-schema-148>"
              },
              "session_id": {
                "type": [
                  "string",
                  "null"
                ],
                "default": null,
                "x-parser-schema-id": "<anonymous-schema-149>"
              },
              "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
              "error": {
                "default": null,
                "description": "What failed (any JSON value).",
                "x-parser-schema-id": "<anonymous-schema-150>"
              }
            },
            "x-parser-schema-id": "ErrorMessage"
          },
          "x-direction": "server",
          "x-delivery": "both",
          "x-flags": [
            "receive_errors"
          ],
          "x-callback": true,
          "x-parser-unique-object-id": "error"
        }
      },
      "x-parser-unique-object-id": "liveSession"
    },
    "callback": {
      "address": "{callbackUrl}",
      "title": "callback_config.url",
      "description": "One HTTPS POST per message to the callback URL, for the messages its flags enable.",
      "servers": [
        "$ref:$.servers.callbackReceiver"
      ],
      "parameters": {
        "callbackUrl": {
          "description": "The URL given in `callback_config.url`."
        }
      },
      "messages": {
        "callbackStartSession": {
          "name": "live.start_session",
          "title": "Callback live.start_session",
          "summary": "Callback body carrying a start_session message.",
          "payload": {
            "type": "object",
            "required": [
              "id",
              "event",
              "payload"
            ],
            "description": "Callback body carrying a `start_session` message.",
            "properties": {
              "id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "event": {
                "type": "string",
                "const": "live.start_session",
                "x-parser-schema-id": "<anonymous-schema-152>"
              },
              "payload": {
                "type": "object",
                "required": [
                  "session_id",
                  "created_at",
                  "type"
                ],
                "description": "The session was created. Posted to the callback URL only, never sent on the WebSocket.",
                "properties": {
                  "session_id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
                  "created_at": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
                  "type": {
                    "type": "string",
                    "const": "start_session",
                    "x-parser-schema-id": "<anonymous-schema-153>"
                  }
                },
                "x-parser-schema-id": "StartSessionMessage"
              }
            },
            "x-parser-schema-id": "CallbackStartSession"
          },
          "x-direction": "callback",
          "x-parser-unique-object-id": "callbackStartSession"
        },
        "callbackStartRecording": {
          "name": "live.start_recording",
          "title": "Callback live.start_recording",
          "summary": "Callback body carrying a start_recording message.",
          "payload": {
            "type": "object",
            "required": [
              "id",
              "event",
              "payload"
            ],
            "description": "Callback body carrying a `start_recording` message.",
            "properties": {
              "id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "event": {
                "type": "string",
                "const": "live.start_recording",
                "x-parser-schema-id": "<anonymous-schema-154>"
              },
              "payload": "$ref:$.channels.liveSession.messages.startRecording.payload"
            },
            "x-parser-schema-id": "CallbackStartRecording"
          },
          "x-direction": "callback",
          "x-parser-unique-object-id": "callbackStartRecording"
        },
        "callbackTranscript": {
          "name": "live.transcript",
          "title": "Callback live.transcript",
          "summary": "Callback body carrying a transcript message.",
          "payload": {
            "type": "object",
            "required": [
              "id",
              "event",
              "payload"
            ],
            "description": "Callback body carrying a `transcript` message.",
            "properties": {
              "id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "event": {
                "type": "string",
                "const": "live.transcript",
                "x-parser-schema-id": "<anonymous-schema-155>"
              },
              "payload": "$ref:$.channels.liveSession.messages.transcript.payload"
            },
            "x-parser-schema-id": "CallbackTranscript"
          },
          "x-direction": "callback",
          "x-parser-unique-object-id": "callbackTranscript"
        },
        "callbackSpeechStart": {
          "name": "live.speech_start",
          "title": "Callback live.speech_start",
          "summary": "Callback body carrying a speech_start message.",
          "payload": {
            "type": "object",
            "required": [
              "id",
              "event",
              "payload"
            ],
            "description": "Callback body carrying a `speech_start` message.",
            "properties": {
              "id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "event": {
                "type": "string",
                "const": "live.speech_start",
                "x-parser-schema-id": "<anonymous-schema-156>"
              },
              "payload": "$ref:$.channels.liveSession.messages.speechStart.payload"
            },
            "x-parser-schema-id": "CallbackSpeechStart"
          },
          "x-direction": "callback",
          "x-parser-unique-object-id": "callbackSpeechStart"
        },
        "callbackSpeechEnd": {
          "name": "live.speech_end",
          "title": "Callback live.speech_end",
          "summary": "Callback body carrying a speech_end message.",
          "payload": {
            "type": "object",
            "required": [
              "id",
              "event",
              "payload"
            ],
            "description": "Callback body carrying a `speech_end` message.",
            "properties": {
              "id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "event": {
                "type": "string",
                "const": "live.speech_end",
                "x-parser-schema-id": "<anonymous-schema-157>"
              },
              "payload": "$ref:$.channels.liveSession.messages.speechEnd.payload"
            },
            "x-parser-schema-id": "CallbackSpeechEnd"
          },
          "x-direction": "callback",
          "x-parser-unique-object-id": "callbackSpeechEnd"
        },
        "callbackNamedEntityRecognition": {
          "name": "live.named_entity_recognition",
          "title": "Callback live.named_entity_recognition",
          "summary": "Callback body carrying a named_entity_recognition message.",
          "payload": {
            "type": "object",
            "required": [
              "id",
              "event",
              "payload"
            ],
            "description": "Callback body carrying a `named_entity_recognition` message.",
            "properties": {
              "id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "event": {
                "type": "string",
                "const": "live.named_entity_recognition",
                "x-parser-schema-id": "<anonymous-schema-158>"
              },
              "payload": "$ref:$.channels.liveSession.messages.namedEntityRecognition.payload"
            },
            "x-parser-schema-id": "CallbackNamedEntityRecognition"
          },
          "x-direction": "callback",
          "x-parser-unique-object-id": "callbackNamedEntityRecognition"
        },
        "callbackSentimentAnalysis": {
          "name": "live.sentiment_analysis",
          "title": "Callback live.sentiment_analysis",
          "summary": "Callback body carrying a sentiment_analysis message.",
          "payload": {
            "type": "object",
            "required": [
              "id",
              "event",
              "payload"
            ],
            "description": "Callback body carrying a `sentiment_analysis` message.",
            "properties": {
              "id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "event": {
                "type": "string",
                "const": "live.sentiment_analysis",
                "x-parser-schema-id": "<anonymous-schema-159>"
              },
              "payload": "$ref:$.channels.liveSession.messages.sentimentAnalysis.payload"
            },
            "x-parser-schema-id": "CallbackSentimentAnalysis"
          },
          "x-direction": "callback",
          "x-parser-unique-object-id": "callbackSentimentAnalysis"
        },
        "callbackTranslation": {
          "name": "live.translation",
          "title": "Callback live.translation",
          "summary": "Callback body carrying a translation message.",
          "payload": {
            "type": "object",
            "required": [
              "id",
              "event",
              "payload"
            ],
            "description": "Callback body carrying a `translation` message.",
            "properties": {
              "id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "event": {
                "type": "string",
                "const": "live.translation",
                "x-parser-schema-id": "<anonymous-schema-160>"
              },
              "payload": "$ref:$.channels.liveSession.messages.translation.payload"
            },
            "x-parser-schema-id": "CallbackTranslation"
          },
          "x-direction": "callback",
          "x-parser-unique-object-id": "callbackTranslation"
        },
        "callbackAudioChunkAck": {
          "name": "live.audio_chunk",
          "title": "Callback live.audio_chunk",
          "summary": "Callback body carrying a audio_chunk message.",
          "payload": {
            "type": "object",
            "required": [
              "id",
              "event",
              "payload"
            ],
            "description": "Callback body carrying a `audio_chunk` message.",
            "properties": {
              "id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "event": {
                "type": "string",
                "const": "live.audio_chunk",
                "x-parser-schema-id": "<anonymous-schema-161>"
              },
              "payload": "$ref:$.channels.liveSession.messages.audioChunkAck.payload"
            },
            "x-parser-schema-id": "CallbackAudioChunkAck"
          },
          "x-direction": "callback",
          "x-parser-unique-object-id": "callbackAudioChunkAck"
        },
        "callbackStopRecordingAck": {
          "name": "live.stop_recording",
          "title": "Callback live.stop_recording",
          "summary": "Callback body carrying a stop_recording message.",
          "payload": {
            "type": "object",
            "required": [
              "id",
              "event",
              "payload"
            ],
            "description": "Callback body carrying a `stop_recording` message.",
            "properties": {
              "id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "event": {
                "type": "string",
                "const": "live.stop_recording",
                "x-parser-schema-id": "<anonymous-schema-162>"
              },
              "payload": "$ref:$.channels.liveSession.messages.stopRecordingAck.payload"
            },
            "x-parser-schema-id": "CallbackStopRecordingAck"
          },
          "x-direction": "callback",
          "x-parser-unique-object-id": "callbackStopRecordingAck"
        },
        "callbackEndRecording": {
          "name": "live.end_recording",
          "title": "Callback live.end_recording",
          "summary": "Callback body carrying a end_recording message.",
          "payload": {
            "type": "object",
            "required": [
              "id",
              "event",
              "payload"
            ],
            "description": "Callback body carrying a `end_recording` message.",
            "properties": {
              "id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "event": {
                "type": "string",
                "const": "live.end_recording",
                "x-parser-schema-id": "<anonymous-schema-163>"
              },
              "payload": "$ref:$.channels.liveSession.messages.endRecording.payload"
            },
            "x-parser-schema-id": "CallbackEndRecording"
          },
          "x-direction": "callback",
          "x-parser-unique-object-id": "callbackEndRecording"
        },
        "callbackPostTranscript": {
          "name": "live.post_transcript",
          "title": "Callback live.post_transcript",
          "summary": "Callback body carrying a post_transcript message.",
          "payload": {
            "type": "object",
            "required": [
              "id",
              "event",
              "payload"
            ],
            "description": "Callback body carrying a `post_transcript` message.",
            "properties": {
              "id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "event": {
                "type": "string",
                "const": "live.post_transcript",
                "x-parser-schema-id": "<anonymous-schema-164>"
              },
              "payload": "$ref:$.channels.liveSession.messages.postTranscript.payload"
            },
            "x-parser-schema-id": "CallbackPostTranscript"
          },
          "x-direction": "callback",
          "x-parser-unique-object-id": "callbackPostTranscript"
        },
        "callbackPostFinalTranscript": {
          "name": "live.post_final_transcript",
          "title": "Callback live.post_final_transcript",
          "summary": "Callback body carrying a post_final_transcript message.",
          "payload": {
            "type": "object",
            "required": [
              "id",
              "event",
              "payload"
            ],
            "description": "Callback body carrying a `post_final_transcript` message.",
            "properties": {
              "id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "event": {
                "type": "string",
                "const": "live.post_final_transcript",
                "x-parser-schema-id": "<anonymous-schema-165>"
              },
              "payload": "$ref:$.channels.liveSession.messages.postFinalTranscript.payload"
            },
            "x-parser-schema-id": "CallbackPostFinalTranscript"
          },
          "x-direction": "callback",
          "x-parser-unique-object-id": "callbackPostFinalTranscript"
        },
        "callbackEndSession": {
          "name": "live.end_session",
          "title": "Callback live.end_session",
          "summary": "Callback body carrying a end_session message.",
          "payload": {
            "type": "object",
            "required": [
              "id",
              "event",
              "payload"
            ],
            "description": "Callback body carrying a `end_session` message.",
            "properties": {
              "id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "event": {
                "type": "string",
                "const": "live.end_session",
                "x-parser-schema-id": "<anonymous-schema-166>"
              },
              "payload": "$ref:$.channels.liveSession.messages.endSession.payload"
            },
            "x-parser-schema-id": "CallbackEndSession"
          },
          "x-direction": "callback",
          "x-parser-unique-object-id": "callbackEndSession"
        },
        "callbackError": {
          "name": "live.error",
          "title": "Callback live.error",
          "summary": "Callback body carrying a error message.",
          "payload": {
            "type": "object",
            "required": [
              "id",
              "event",
              "payload"
            ],
            "description": "Callback body carrying a `error` message.",
            "properties": {
              "id": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
              "event": {
                "type": "string",
                "const": "live.error",
                "x-parser-schema-id": "<anonymous-schema-167>"
              },
              "payload": "$ref:$.channels.liveSession.messages.error.payload"
            },
            "x-parser-schema-id": "CallbackError"
          },
          "x-direction": "callback",
          "x-parser-unique-object-id": "callbackError"
        }
      },
      "x-parser-unique-object-id": "callback"
    }
  },
  "operations": {
    "receiveAudioChunk": {
      "action": "receive",
      "title": "Client sends audio as JSON",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.audioChunk"
      ],
      "x-parser-unique-object-id": "receiveAudioChunk"
    },
    "receiveAudioChunkBinary": {
      "action": "receive",
      "title": "Client sends audio as a binary frame",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.audioChunkBinary"
      ],
      "x-parser-unique-object-id": "receiveAudioChunkBinary"
    },
    "receiveStopRecording": {
      "action": "receive",
      "title": "Client ends the audio",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.stopRecording"
      ],
      "x-parser-unique-object-id": "receiveStopRecording"
    },
    "sendStartRecording": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.startRecording"
      ],
      "x-parser-unique-object-id": "sendStartRecording"
    },
    "sendTranscript": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.transcript"
      ],
      "x-parser-unique-object-id": "sendTranscript"
    },
    "sendSpeechStart": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.speechStart"
      ],
      "x-parser-unique-object-id": "sendSpeechStart"
    },
    "sendSpeechEnd": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.speechEnd"
      ],
      "x-parser-unique-object-id": "sendSpeechEnd"
    },
    "sendNamedEntityRecognition": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.namedEntityRecognition"
      ],
      "x-parser-unique-object-id": "sendNamedEntityRecognition"
    },
    "sendPii": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.pii"
      ],
      "x-parser-unique-object-id": "sendPii"
    },
    "sendSentimentAnalysis": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.sentimentAnalysis"
      ],
      "x-parser-unique-object-id": "sendSentimentAnalysis"
    },
    "sendTranslation": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.translation"
      ],
      "x-parser-unique-object-id": "sendTranslation"
    },
    "sendEndOfTurn": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.endOfTurn"
      ],
      "x-parser-unique-object-id": "sendEndOfTurn"
    },
    "sendEndOfTurnScore": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.endOfTurnScore"
      ],
      "x-parser-unique-object-id": "sendEndOfTurnScore"
    },
    "sendAudioChunkAck": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.audioChunkAck"
      ],
      "x-parser-unique-object-id": "sendAudioChunkAck"
    },
    "sendStopRecordingAck": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.stopRecordingAck"
      ],
      "x-parser-unique-object-id": "sendStopRecordingAck"
    },
    "sendEndRecording": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.endRecording"
      ],
      "x-parser-unique-object-id": "sendEndRecording"
    },
    "sendPostTranscript": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.postTranscript"
      ],
      "x-parser-unique-object-id": "sendPostTranscript"
    },
    "sendPostFinalTranscript": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.postFinalTranscript"
      ],
      "x-parser-unique-object-id": "sendPostFinalTranscript"
    },
    "sendEndSession": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.endSession"
      ],
      "x-parser-unique-object-id": "sendEndSession"
    },
    "sendError": {
      "action": "send",
      "channel": "$ref:$.channels.liveSession",
      "messages": [
        "$ref:$.channels.liveSession.messages.error"
      ],
      "x-parser-unique-object-id": "sendError"
    },
    "postCallback": {
      "action": "send",
      "title": "Service posts a message to the callback URL",
      "channel": "$ref:$.channels.callback",
      "bindings": {
        "http": {
          "method": "POST",
          "bindingVersion": "0.3.0"
        }
      },
      "messages": [
        "$ref:$.channels.callback.messages.callbackStartSession",
        "$ref:$.channels.callback.messages.callbackStartRecording",
        "$ref:$.channels.callback.messages.callbackTranscript",
        "$ref:$.channels.callback.messages.callbackSpeechStart",
        "$ref:$.channels.callback.messages.callbackSpeechEnd",
        "$ref:$.channels.callback.messages.callbackNamedEntityRecognition",
        "$ref:$.channels.callback.messages.callbackSentimentAnalysis",
        "$ref:$.channels.callback.messages.callbackTranslation",
        "$ref:$.channels.callback.messages.callbackAudioChunkAck",
        "$ref:$.channels.callback.messages.callbackStopRecordingAck",
        "$ref:$.channels.callback.messages.callbackEndRecording",
        "$ref:$.channels.callback.messages.callbackPostTranscript",
        "$ref:$.channels.callback.messages.callbackPostFinalTranscript",
        "$ref:$.channels.callback.messages.callbackEndSession",
        "$ref:$.channels.callback.messages.callbackError"
      ],
      "x-parser-unique-object-id": "postCallback"
    }
  },
  "components": {
    "messages": {
      "audioChunk": "$ref:$.channels.liveSession.messages.audioChunk",
      "audioChunkBinary": "$ref:$.channels.liveSession.messages.audioChunkBinary",
      "stopRecording": "$ref:$.channels.liveSession.messages.stopRecording",
      "startSession": {
        "name": "start_session",
        "title": "start_session",
        "summary": "The session was created. Posted to the callback URL only.",
        "payload": "$ref:$.channels.callback.messages.callbackStartSession.payload.properties.payload",
        "x-direction": "server",
        "x-delivery": "callback-only",
        "x-flags": [
          "receive_lifecycle_events"
        ],
        "x-callback": true,
        "x-parser-unique-object-id": "startSession"
      },
      "startRecording": "$ref:$.channels.liveSession.messages.startRecording",
      "transcript": "$ref:$.channels.liveSession.messages.transcript",
      "speechStart": "$ref:$.channels.liveSession.messages.speechStart",
      "speechEnd": "$ref:$.channels.liveSession.messages.speechEnd",
      "namedEntityRecognition": "$ref:$.channels.liveSession.messages.namedEntityRecognition",
      "pii": "$ref:$.channels.liveSession.messages.pii",
      "sentimentAnalysis": "$ref:$.channels.liveSession.messages.sentimentAnalysis",
      "translation": "$ref:$.channels.liveSession.messages.translation",
      "endOfTurn": "$ref:$.channels.liveSession.messages.endOfTurn",
      "endOfTurnScore": "$ref:$.channels.liveSession.messages.endOfTurnScore",
      "audioChunkAck": "$ref:$.channels.liveSession.messages.audioChunkAck",
      "stopRecordingAck": "$ref:$.channels.liveSession.messages.stopRecordingAck",
      "endRecording": "$ref:$.channels.liveSession.messages.endRecording",
      "postTranscript": "$ref:$.channels.liveSession.messages.postTranscript",
      "postFinalTranscript": "$ref:$.channels.liveSession.messages.postFinalTranscript",
      "endSession": "$ref:$.channels.liveSession.messages.endSession",
      "error": "$ref:$.channels.liveSession.messages.error",
      "callbackStartSession": "$ref:$.channels.callback.messages.callbackStartSession",
      "callbackStartRecording": "$ref:$.channels.callback.messages.callbackStartRecording",
      "callbackTranscript": "$ref:$.channels.callback.messages.callbackTranscript",
      "callbackSpeechStart": "$ref:$.channels.callback.messages.callbackSpeechStart",
      "callbackSpeechEnd": "$ref:$.channels.callback.messages.callbackSpeechEnd",
      "callbackNamedEntityRecognition": "$ref:$.channels.callback.messages.callbackNamedEntityRecognition",
      "callbackSentimentAnalysis": "$ref:$.channels.callback.messages.callbackSentimentAnalysis",
      "callbackTranslation": "$ref:$.channels.callback.messages.callbackTranslation",
      "callbackAudioChunkAck": "$ref:$.channels.callback.messages.callbackAudioChunkAck",
      "callbackStopRecordingAck": "$ref:$.channels.callback.messages.callbackStopRecordingAck",
      "callbackEndRecording": "$ref:$.channels.callback.messages.callbackEndRecording",
      "callbackPostTranscript": "$ref:$.channels.callback.messages.callbackPostTranscript",
      "callbackPostFinalTranscript": "$ref:$.channels.callback.messages.callbackPostFinalTranscript",
      "callbackEndSession": "$ref:$.channels.callback.messages.callbackEndSession",
      "callbackError": "$ref:$.channels.callback.messages.callbackError"
    },
    "schemas": {
      "AddonError": "$ref:$.channels.liveSession.messages.postTranscript.payload.properties.data.properties.sentences.items.properties.error.oneOf[0]",
      "AddonResult": "$ref:$.channels.liveSession.messages.postFinalTranscript.payload.properties.data.properties.translation.allOf[0]",
      "AudioChunkAckMessage": "$ref:$.channels.liveSession.messages.audioChunkAck.payload",
      "AudioChunkMessage": "$ref:$.channels.liveSession.messages.audioChunk.payload",
      "CallbackAudioChunkAck": "$ref:$.channels.callback.messages.callbackAudioChunkAck.payload",
      "CallbackConfig": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "url"
        ],
        "description": "Where and which messages are also posted over HTTPS, one POST per message.",
        "properties": {
          "url": {
            "type": "string",
            "format": "uri",
            "minLength": 1,
            "description": "URL receiving the messages: http or https, without credentials, whose host resolves only to public addresses. Loopback, private, link-local and other internal destinations are refused with 400 naming this field unless the operator allows them; a destination refused later (its name now resolving to an internal address) is reported once with an `error` message on the WebSocket.",
            "x-parser-schema-id": "<anonymous-schema-168>"
          },
          "receive_partial_transcripts": {
            "type": "boolean",
            "default": false,
            "description": "Interim transcripts.",
            "x-parser-schema-id": "<anonymous-schema-169>"
          },
          "receive_final_transcripts": {
            "type": "boolean",
            "default": true,
            "description": "Final transcripts.",
            "x-parser-schema-id": "<anonymous-schema-170>"
          },
          "receive_speech_events": {
            "type": "boolean",
            "default": false,
            "description": "Speech start and end.",
            "x-parser-schema-id": "<anonymous-schema-171>"
          },
          "receive_pre_processing_events": {
            "type": "boolean",
            "default": true,
            "description": "Pre-processing messages.",
            "x-parser-schema-id": "<anonymous-schema-172>"
          },
          "receive_realtime_processing_events": {
            "type": "boolean",
            "default": true,
            "description": "Realtime add-on messages.",
            "x-parser-schema-id": "<anonymous-schema-173>"
          },
          "receive_post_processing_events": {
            "type": "boolean",
            "default": true,
            "description": "Post-processing messages.",
            "x-parser-schema-id": "<anonymous-schema-174>"
          },
          "receive_acknowledgments": {
            "type": "boolean",
            "default": false,
            "description": "Acknowledgments.",
            "x-parser-schema-id": "<anonymous-schema-175>"
          },
          "receive_errors": {
            "type": "boolean",
            "default": false,
            "description": "Error messages.",
            "x-parser-schema-id": "<anonymous-schema-176>"
          },
          "receive_lifecycle_events": {
            "type": "boolean",
            "default": true,
            "description": "Lifecycle messages.",
            "x-parser-schema-id": "<anonymous-schema-177>"
          }
        },
        "x-parser-schema-id": "CallbackConfig"
      },
      "CallbackEndRecording": "$ref:$.channels.callback.messages.callbackEndRecording.payload",
      "CallbackEndSession": "$ref:$.channels.callback.messages.callbackEndSession.payload",
      "CallbackError": "$ref:$.channels.callback.messages.callbackError.payload",
      "CallbackMessage": {
        "description": "Any body posted to the callback URL.",
        "oneOf": [
          "$ref:$.channels.callback.messages.callbackStartSession.payload",
          "$ref:$.channels.callback.messages.callbackStartRecording.payload",
          "$ref:$.channels.callback.messages.callbackTranscript.payload",
          "$ref:$.channels.callback.messages.callbackSpeechStart.payload",
          "$ref:$.channels.callback.messages.callbackSpeechEnd.payload",
          "$ref:$.channels.callback.messages.callbackNamedEntityRecognition.payload",
          "$ref:$.channels.callback.messages.callbackSentimentAnalysis.payload",
          "$ref:$.channels.callback.messages.callbackTranslation.payload",
          "$ref:$.channels.callback.messages.callbackAudioChunkAck.payload",
          "$ref:$.channels.callback.messages.callbackStopRecordingAck.payload",
          "$ref:$.channels.callback.messages.callbackEndRecording.payload",
          "$ref:$.channels.callback.messages.callbackPostTranscript.payload",
          "$ref:$.channels.callback.messages.callbackPostFinalTranscript.payload",
          "$ref:$.channels.callback.messages.callbackEndSession.payload",
          "$ref:$.channels.callback.messages.callbackError.payload"
        ],
        "discriminator": "event",
        "x-parser-schema-id": "CallbackMessage"
      },
      "CallbackNamedEntityRecognition": "$ref:$.channels.callback.messages.callbackNamedEntityRecognition.payload",
      "CallbackPostFinalTranscript": "$ref:$.channels.callback.messages.callbackPostFinalTranscript.payload",
      "CallbackPostTranscript": "$ref:$.channels.callback.messages.callbackPostTranscript.payload",
      "CallbackSentimentAnalysis": "$ref:$.channels.callback.messages.callbackSentimentAnalysis.payload",
      "CallbackSpeechEnd": "$ref:$.channels.callback.messages.callbackSpeechEnd.payload",
      "CallbackSpeechStart": "$ref:$.channels.callback.messages.callbackSpeechStart.payload",
      "CallbackStartRecording": "$ref:$.channels.callback.messages.callbackStartRecording.payload",
      "CallbackStartSession": "$ref:$.channels.callback.messages.callbackStartSession.payload",
      "CallbackStopRecordingAck": "$ref:$.channels.callback.messages.callbackStopRecordingAck.payload",
      "CallbackTranscript": "$ref:$.channels.callback.messages.callbackTranscript.payload",
      "CallbackTranslation": "$ref:$.channels.callback.messages.callbackTranslation.payload",
      "ClientMessage": {
        "description": "Any JSON message a client sends.",
        "oneOf": [
          "$ref:$.channels.liveSession.messages.audioChunk.payload",
          "$ref:$.channels.liveSession.messages.stopRecording.payload"
        ],
        "discriminator": "type",
        "x-parser-schema-id": "ClientMessage"
      },
      "EndOfTurnConfig": {
        "type": "object",
        "additionalProperties": false,
        "description": "End-of-turn detection. Every member is optional; an absent or null member keeps the service default (see GET /v2/live/defaults).",
        "properties": {
          "threshold": {
            "type": [
              "number",
              "null"
            ],
            "exclusiveMinimum": 0,
            "exclusiveMaximum": 1,
            "default": null,
            "description": "Probability above which the turn ends.",
            "x-parser-schema-id": "<anonymous-schema-178>"
          },
          "silence_ms": {
            "type": [
              "integer",
              "null"
            ],
            "exclusiveMinimum": 0,
            "maximum": 10000,
            "default": null,
            "description": "Milliseconds of silence before a turn is evaluated.",
            "x-parser-schema-id": "<anonymous-schema-179>"
          },
          "stop_s": {
            "type": [
              "number",
              "null"
            ],
            "exclusiveMinimum": 0,
            "maximum": 60,
            "default": null,
            "description": "Seconds of silence that end the turn whatever the probability.",
            "x-parser-schema-id": "<anonymous-schema-180>"
          },
          "emit_scores": {
            "type": [
              "boolean",
              "null"
            ],
            "default": null,
            "description": "Also send an `end_of_turn_score` message for every evaluation.",
            "x-parser-schema-id": "<anonymous-schema-181>"
          },
          "window_s": {
            "type": [
              "number",
              "null"
            ],
            "exclusiveMinimum": 0,
            "maximum": 8,
            "default": null,
            "description": "Seconds of audio before the silence that an evaluation reads.",
            "x-parser-schema-id": "<anonymous-schema-182>"
          },
          "speech_dbfs": {
            "type": [
              "number",
              "null"
            ],
            "minimum": -100,
            "maximum": 0,
            "default": null,
            "description": "Level (dBFS) under which audio counts as silence.",
            "x-parser-schema-id": "<anonymous-schema-183>"
          },
          "reeval_ms": {
            "type": [
              "integer",
              "null"
            ],
            "minimum": 0,
            "maximum": 10000,
            "default": null,
            "description": "Milliseconds between two evaluations of the same silence.",
            "x-parser-schema-id": "<anonymous-schema-184>"
          }
        },
        "x-parser-schema-id": "EndOfTurnConfig"
      },
      "EndOfTurnMessage": "$ref:$.channels.liveSession.messages.endOfTurn.payload",
      "EndOfTurnScoreMessage": "$ref:$.channels.liveSession.messages.endOfTurnScore.payload",
      "EndRecordingMessage": "$ref:$.channels.liveSession.messages.endRecording.payload",
      "EndSessionMessage": "$ref:$.channels.liveSession.messages.endSession.payload",
      "Entity": "$ref:$.channels.liveSession.messages.namedEntityRecognition.payload.properties.data.oneOf[1].properties.results.items.allOf[0]",
      "EntityName": {
        "type": "string",
        "description": "An entity type or a preset naming several. Types: `name`, `organization`, `location`, `location_city`, `location_state`, `location_country`, `date`, `time`, `money`, `phone_number`, `email_address`, `url`, `ip_address`, `credit_card_number`, `iban`, `ssn`. Presets: `pii`, `pci`, `phi`, `contact`, `financial`, `number`, `ner`, `all`, and `location`, `date`, `name`, `organization` (which are also types or their groups).",
        "enum": [
          "pii",
          "pci",
          "phi",
          "contact",
          "financial",
          "number",
          "ner",
          "all",
          "name",
          "organization",
          "location",
          "location_city",
          "location_state",
          "location_country",
          "date",
          "time",
          "money",
          "phone_number",
          "email_address",
          "url",
          "ip_address",
          "credit_card_number",
          "iban",
          "ssn"
        ],
        "x-parser-schema-id": "EntityName"
      },
      "EntitySelection": {
        "type": "object",
        "additionalProperties": false,
        "description": "Entity types to tag and the confidence needed.",
        "properties": {
          "entities": {
            "description": "Which entity types: a preset or type name, a list of presets and types, or an object enabling and disabling types.",
            "anyOf": [
              "$ref:$.components.schemas.EntityName",
              {
                "type": "array",
                "items": "$ref:$.components.schemas.EntityName",
                "x-parser-schema-id": "<anonymous-schema-185>"
              },
              {
                "type": "object",
                "additionalProperties": false,
                "description": "Entity types to add and to remove.",
                "properties": {
                  "enable": {
                    "type": "array",
                    "items": "$ref:$.components.schemas.EntityName",
                    "description": "Types or presets turned on.",
                    "x-parser-schema-id": "<anonymous-schema-186>"
                  },
                  "disable": {
                    "type": "array",
                    "items": "$ref:$.components.schemas.EntityName",
                    "description": "Types or presets turned off.",
                    "x-parser-schema-id": "<anonymous-schema-187>"
                  }
                },
                "x-parser-schema-id": "EntityToggle"
              }
            ],
            "x-parser-schema-id": "EntityTypeSelection"
          },
          "threshold": {
            "type": "number",
            "minimum": 0,
            "maximum": 1,
            "default": 0.5,
            "description": "Confidence under which an entity is ignored.",
            "x-parser-schema-id": "<anonymous-schema-188>"
          }
        },
        "x-parser-schema-id": "EntitySelection"
      },
      "EntityToggle": "$ref:$.components.schemas.EntitySelection.properties.entities.anyOf[2]",
      "EntityTypeSelection": "$ref:$.components.schemas.EntitySelection.properties.entities",
      "ErrorMessage": "$ref:$.channels.liveSession.messages.error.payload",
      "ErrorResponse": {
        "type": "object",
        "description": "Body of every HTTP error answer.",
        "additionalProperties": false,
        "required": [
          "statusCode",
          "timestamp",
          "path",
          "message",
          "request_id"
        ],
        "properties": {
          "statusCode": {
            "type": "integer",
            "minimum": 400,
            "maximum": 599,
            "description": "HTTP status of the answer.",
            "x-parser-schema-id": "<anonymous-schema-189>"
          },
          "timestamp": {
            "type": "string",
            "format": "date-time",
            "description": "When the error happened (ISO 8601, UTC).",
            "x-parser-schema-id": "<anonymous-schema-190>"
          },
          "path": {
            "type": "string",
            "description": "Path of the endpoint that answered.",
            "x-parser-schema-id": "<anonymous-schema-191>"
          },
          "message": {
            "type": "string",
            "description": "Human-readable explanation.",
            "x-parser-schema-id": "<anonymous-schema-192>"
          },
          "request_id": {
            "type": "string",
            "pattern": "^G-[0-9a-f]{8}$",
            "description": "Identifier of one request, to quote when asking for support.",
            "examples": [
              "G-1a2b3c4d"
            ],
            "x-parser-schema-id": "RequestId"
          },
          "validation_errors": {
            "type": [
              "array",
              "null"
            ],
            "default": null,
            "description": "On 400 only, one entry per invalid field, written as `<field path>: <rule>`.",
            "items": {
              "type": "string",
              "x-parser-schema-id": "<anonymous-schema-194>"
            },
            "x-parser-schema-id": "<anonymous-schema-193>"
          },
          "error": {
            "type": [
              "string",
              "null"
            ],
            "default": null,
            "description": "Machine-readable reason for some refusals, e.g. `ip_not_allowed`, `api_key_scope_denied`, `insufficient_credits`, `no_inference_endpoint`, `no_capacity`.",
            "x-parser-schema-id": "<anonymous-schema-195>"
          }
        },
        "examples": [
          {
            "statusCode": 400,
            "timestamp": "2025-01-01T00:00:00.000Z",
            "path": "/v2/live",
            "message": "Invalid session options",
            "request_id": "G-0a1b2c3d",
            "validation_errors": [
              "sample_rate: must be one of 8000, 16000, 32000, 44100, 48000"
            ],
            "error": null
          }
        ],
        "x-parser-schema-id": "ErrorResponse"
      },
      "MessageError": "$ref:$.channels.liveSession.messages.namedEntityRecognition.payload.properties.error",
      "MessagesConfig": {
        "type": "object",
        "additionalProperties": false,
        "description": "Which messages are sent on the WebSocket.",
        "properties": {
          "receive_partial_transcripts": {
            "type": "boolean",
            "default": true,
            "description": "Interim transcripts.",
            "x-parser-schema-id": "<anonymous-schema-196>"
          },
          "receive_final_transcripts": {
            "type": "boolean",
            "default": true,
            "description": "Final transcripts.",
            "x-parser-schema-id": "<anonymous-schema-197>"
          },
          "receive_speech_events": {
            "type": "boolean",
            "default": true,
            "description": "Speech start and end.",
            "x-parser-schema-id": "<anonymous-schema-198>"
          },
          "receive_pre_processing_events": {
            "type": "boolean",
            "default": true,
            "description": "Pre-processing messages.",
            "x-parser-schema-id": "<anonymous-schema-199>"
          },
          "receive_realtime_processing_events": {
            "type": "boolean",
            "default": true,
            "description": "Realtime add-on messages.",
            "x-parser-schema-id": "<anonymous-schema-200>"
          },
          "receive_post_processing_events": {
            "type": "boolean",
            "default": true,
            "description": "Post-processing messages.",
            "x-parser-schema-id": "<anonymous-schema-201>"
          },
          "receive_acknowledgments": {
            "type": "boolean",
            "default": true,
            "description": "Acknowledgments.",
            "x-parser-schema-id": "<anonymous-schema-202>"
          },
          "receive_errors": {
            "type": "boolean",
            "default": true,
            "description": "Error messages.",
            "x-parser-schema-id": "<anonymous-schema-203>"
          },
          "receive_lifecycle_events": {
            "type": "boolean",
            "default": false,
            "description": "Lifecycle messages.",
            "x-parser-schema-id": "<anonymous-schema-204>"
          }
        },
        "x-parser-schema-id": "MessagesConfig"
      },
      "NamedEntity": "$ref:$.channels.liveSession.messages.namedEntityRecognition.payload.properties.data.oneOf[1].properties.results.items",
      "NamedEntityRecognitionMessage": "$ref:$.channels.liveSession.messages.namedEntityRecognition.payload",
      "PiiMessage": "$ref:$.channels.liveSession.messages.pii.payload",
      "PostFinalTranscriptMessage": "$ref:$.channels.liveSession.messages.postFinalTranscript.payload",
      "PostTranscriptMessage": "$ref:$.channels.liveSession.messages.postTranscript.payload",
      "RequestId": "$ref:$.components.schemas.ErrorResponse.properties.request_id",
      "Sentence": "$ref:$.channels.liveSession.messages.postTranscript.payload.properties.data.properties.sentences.items",
      "SentimentAnalysisMessage": "$ref:$.channels.liveSession.messages.sentimentAnalysis.payload",
      "SentimentResult": "$ref:$.channels.liveSession.messages.sentimentAnalysis.payload.properties.data.oneOf[1].properties.results.items",
      "ServerMessage": {
        "description": "Any message the service sends on the WebSocket.",
        "oneOf": [
          "$ref:$.channels.liveSession.messages.startRecording.payload",
          "$ref:$.channels.liveSession.messages.transcript.payload",
          "$ref:$.channels.liveSession.messages.speechStart.payload",
          "$ref:$.channels.liveSession.messages.speechEnd.payload",
          "$ref:$.channels.liveSession.messages.namedEntityRecognition.payload",
          "$ref:$.channels.liveSession.messages.pii.payload",
          "$ref:$.channels.liveSession.messages.sentimentAnalysis.payload",
          "$ref:$.channels.liveSession.messages.translation.payload",
          "$ref:$.channels.liveSession.messages.endOfTurn.payload",
          "$ref:$.channels.liveSession.messages.endOfTurnScore.payload",
          "$ref:$.channels.liveSession.messages.audioChunkAck.payload",
          "$ref:$.channels.liveSession.messages.stopRecordingAck.payload",
          "$ref:$.channels.liveSession.messages.endRecording.payload",
          "$ref:$.channels.liveSession.messages.postTranscript.payload",
          "$ref:$.channels.liveSession.messages.postFinalTranscript.payload",
          "$ref:$.channels.liveSession.messages.endSession.payload",
          "$ref:$.channels.liveSession.messages.error.payload"
        ],
        "discriminator": "type",
        "x-parser-schema-id": "ServerMessage"
      },
      "SessionId": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.session_id",
      "SpeechEndMessage": "$ref:$.channels.liveSession.messages.speechEnd.payload",
      "SpeechEventData": "$ref:$.channels.liveSession.messages.speechStart.payload.properties.data",
      "SpeechStartMessage": "$ref:$.channels.liveSession.messages.speechStart.payload",
      "StartRecordingMessage": "$ref:$.channels.liveSession.messages.startRecording.payload",
      "StartSessionMessage": "$ref:$.channels.callback.messages.callbackStartSession.payload.properties.payload",
      "StopRecordingAckMessage": "$ref:$.channels.liveSession.messages.stopRecordingAck.payload",
      "StopRecordingMessage": "$ref:$.channels.liveSession.messages.stopRecording.payload",
      "Subtitle": "$ref:$.channels.liveSession.messages.postTranscript.payload.properties.data.properties.subtitles.items",
      "Timestamp": "$ref:$.channels.liveSession.messages.startRecording.payload.properties.created_at",
      "TranscriptMessage": "$ref:$.channels.liveSession.messages.transcript.payload",
      "Transcription": "$ref:$.channels.liveSession.messages.postTranscript.payload.properties.data",
      "TranscriptionMetadata": "$ref:$.channels.liveSession.messages.postFinalTranscript.payload.properties.data.properties.metadata",
      "TranscriptionResult": "$ref:$.channels.liveSession.messages.postFinalTranscript.payload.properties.data",
      "TranslatedTranscription": "$ref:$.channels.liveSession.messages.postFinalTranscript.payload.properties.data.properties.translation.allOf[1].properties.results.items",
      "TranslationLanguageCode": "$ref:$.channels.liveSession.messages.translation.payload.properties.data.oneOf[1].properties.target_language",
      "TranslationMessage": "$ref:$.channels.liveSession.messages.translation.payload",
      "Utterance": "$ref:$.channels.liveSession.messages.transcript.payload.properties.data.properties.utterance",
      "Word": "$ref:$.channels.liveSession.messages.transcript.payload.properties.data.properties.utterance.properties.words.items"
    }
  },
  "x-parser-spec-parsed": true,
  "x-parser-api-version": 3,
  "x-parser-spec-stringified": true
};
    const config = {"show":{"sidebar":true},"sidebar":{"showOperations":"byDefault"}};
    const appRoot = document.getElementById('root');
    AsyncApiStandalone.render(
        { schema, config, }, appRoot
    );
  