# Wörter der Seitenskripte (Public/assets/js).

js-upload-network-error = Das Hochladen ist fehlgeschlagen. Prüfe deine Verbindung und versuche es noch einmal.
js-upload-server-error = Das Hochladen ist fehlgeschlagen. Lade die Seite neu und versuche es noch einmal.
js-uploading-file = { $file } wird hochgeladen
js-upload-too-large = Dieses Foto ist größer als { $size }.
js-upload-ready = Bereit
js-upload-done = Hochgeladen
js-upload-open = Öffnen
js-upload-open-file = { $file } öffnen
js-upload-pause = Pause
js-upload-pause-file = { $file } anhalten
js-upload-resume = Fortsetzen
js-upload-resume-file = { $file } fortsetzen
js-uploading = Wird hochgeladen: { $percent } %
js-upload-retrying = Verbindung verloren: neuer Versuch in { $seconds } s
js-upload-busy = Selfie ist gerade ausgelastet: neuer Versuch in { $seconds } s
js-upload-paused = Angehalten bei { $percent } %
js-upload-waiting = Wartet
js-upload-see-gallery = In deiner Galerie ansehen
js-upload-summary = { $count ->
    [one] 1 Foto hochgeladen.
   *[other] { $count } Fotos hochgeladen.
}
js-upload-summary-failed = { $count ->
    [one] 1 Foto hochgeladen, { $failed } fehlgeschlagen.
   *[other] { $count } Fotos hochgeladen, { $failed } fehlgeschlagen.
}
js-upload-retry-failed = { $count ->
    [one] Das fehlgeschlagene Foto noch einmal senden
   *[other] Die { $count } fehlgeschlagenen Fotos noch einmal senden
}
js-bytes = { $count } Byte
js-photos-selected = { $count ->
    [one] 1 Foto ausgewählt
   *[other] { $count } Fotos ausgewählt
}
js-clear-selection = Auswahl aufheben
js-select-all = Alle auswählen
js-album-needs-name = Gib dem neuen Album einen Namen.
js-passkey-creating = Folge den Anweisungen deines Browsers, um den Passkey zu erstellen …
js-passkey-not-added = Der Passkey wurde nicht hinzugefügt. Du kannst es noch einmal versuchen.
js-passkey-using = Folge den Anweisungen deines Browsers, um deinen Passkey zu benutzen …
js-passkey-failed = Das hat nicht geklappt. Versuche es noch einmal oder melde dich mit deinem Passwort an.
js-copied = Kopiert
