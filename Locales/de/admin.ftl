# Die Verwaltungsseiten. Wiederverwendet: die Titel (title-admin-…), account-profile,
# account-storage, account-name, account-never, account-session-facts, account-linked-methods,
# sign-in-identifier, field-password, upload-photos, photo-count, title-photo.

admin-dashboard = Übersicht

# Die Übersicht: eine Zahl, dann was sie zählt (die Zahl steht neben den Wörtern).
admin-mail-not-sent = Es werden keine E-Mails verschickt.
admin-mail-not-sent-detail = MAIL_TRANSPORT=log schreibt nur Empfänger und Betreff ins Log, also bekommt niemand Bestätigungs- oder Zurücksetzungslinks. Setze MAIL_TRANSPORT=smtp und SMTP_URL.
admin-stat-users = { $count ->
    [one] Nutzer
   *[other] Nutzer
}
admin-stat-sessions = { $count ->
    [one] aktive Browsersitzung
   *[other] aktive Browsersitzungen
}
admin-stat-photos = { $count ->
    [one] Foto
   *[other] Fotos
}
admin-stat-stored = gespeichert
admin-stat-sign-ins = { $count ->
    [one] Anmeldung in den letzten 24 Stunden
   *[other] Anmeldungen in den letzten 24 Stunden
}
admin-stat-failed-sign-ins = { $count ->
    [one] fehlgeschlagene Anmeldung in den letzten 24 Stunden
   *[other] fehlgeschlagene Anmeldungen in den letzten 24 Stunden
}
admin-most-storage = Größter Speicherverbrauch
admin-no-users-yet = Noch keine Nutzer.
admin-every-user-by-storage = Alle Nutzer nach Speicherverbrauch

# Nutzer.
admin-user = Nutzer
admin-search-label = Nach E-Mail-Adresse, Benutzername oder Name suchen
admin-search = Suchen
admin-sorted = Sortiert:
admin-sort-newest = neueste zuerst
admin-sort-oldest = älteste zuerst
admin-sort-storage = größter Speicherverbrauch zuerst
admin-no-users-match = Keine Nutzer gefunden.
admin-signed-up = Registriert
admin-last-sign-in = Letzte Anmeldung
admin-status = Status
admin-status-active = aktiv
admin-status-disabled = deaktiviert
admin-role = Rolle
admin-role-admin = Admin
admin-role-user = Nutzer
admin-previous = ← Zurück
admin-next = Weiter →

# Ein Nutzer.
admin-user-audit = Protokolleinträge zu diesem Nutzer
admin-storage-counts = Es zählen die Originale, die Anzeigekopien und der Papierkorb.
admin-quota = Kontingent
admin-quota-default = Der Standard ({ $size })
admin-quota-none = Ohne Grenze
admin-quota-exactly = Genau
admin-quota-in-mb = Kontingent in MB
admin-quota-unit = MB
admin-quota-hint = Uploads, die das Kontingent überschreiten würden, werden abgelehnt; was schon gespeichert ist, bleibt.
admin-quota-save = Kontingent speichern
admin-no-limit = ohne Grenze
admin-actions = Aktionen
admin-no-photos = Keine Fotos.
admin-newest-photos = Zu sehen sind die neuesten 24.
admin-albums-and-links = Alben und Freigabelinks
admin-no-albums = Keine Alben.
admin-live-links = Links, die sich jetzt öffnen lassen
admin-no-live-links = Keine aktiven Freigabelinks.
admin-signed-in-on = Angemeldet auf
admin-no-sessions = Keine aktiven Sitzungen oder API-Tokens.
admin-no-provider = Kein Anbieter verknüpft.
admin-token = API-Token (App-Schlüssel { $key })
admin-token-facts = ausgestellt am { $issued } · zuletzt benutzt { $used } · läuft ab am { $expires }
admin-identity-facts = { $account } · verknüpft am { $linked } · zuletzt benutzt { $used }
admin-link-album = Album „{ $title }“
admin-link-photo = Foto „{ $title }“
admin-link-untitled = ohne Titel
admin-link-made = erstellt am { $date }
admin-link-until = bis { $date }
admin-link-never-expires = läuft nie ab
admin-link-password = Passwort
admin-link-views = { $count ->
    [one] 1 Aufruf
   *[other] { $count } Aufrufe
}

# Was eine Verwaltungsperson mit einem Konto tun kann: Link, Frage, Folgen, Knopf.
admin-action-disable = Konto deaktivieren
admin-action-enable = Konto aktivieren
admin-action-revoke-access = Überall abmelden (Sitzungen und API-Tokens)
admin-action-delete = Konto und Fotos löschen
admin-action-promote = Zum Admin machen
admin-action-demote = Admin-Rolle entziehen
admin-action-send-reset-link = Link zum Zurücksetzen des Passworts schicken
admin-action-reset-second-factor = Bestätigung in zwei Schritten und Passkeys zurücksetzen
admin-action-revoke-links = Alle Freigabelinks abschalten
admin-confirm-question = { $action }? { $user }
admin-do-disable = Ja, Konto deaktivieren
admin-do-enable = Ja, Konto aktivieren
admin-do-revoke-access = Ja, überall abmelden (Sitzungen und API-Tokens)
admin-do-delete = Ja, Konto und Fotos löschen
admin-do-promote = Ja, zum Admin machen
admin-do-demote = Ja, Admin-Rolle entziehen
admin-do-send-reset-link = Ja, Link zum Zurücksetzen schicken
admin-do-reset-second-factor = Ja, Bestätigung in zwei Schritten und Passkeys zurücksetzen
admin-do-revoke-links = Ja, alle Freigabelinks abschalten
admin-then-disable = Die Person wird sofort überall abgemeldet und kann sich erst wieder anmelden, wenn das Konto aktiviert ist.
admin-then-enable = Die Person kann sich wieder anmelden.
admin-then-revoke-access = Alle Browsersitzungen und API-Tokens der Person enden jetzt; sie kann sich wieder anmelden.
admin-then-delete = { $count ->
    [one] Das Konto, 1 Foto und alle Sitzungen enden endgültig. Das lässt sich nicht rückgängig machen.
   *[other] Das Konto, { $count } Fotos und alle Sitzungen enden endgültig. Das lässt sich nicht rückgängig machen.
}
admin-then-promote = Die Person kann diese Verwaltungsseiten benutzen.
admin-then-demote = Die Person kann diese Verwaltungsseiten nicht mehr benutzen.
admin-then-reset-second-factor = Authenticator-App, Wiederherstellungscodes, gemerkte Browser und Passkeys werden entfernt: Bis die Person sie neu einrichtet, genügt ihr Passwort allein zur Anmeldung (ohne Passwort wählt sie eins über einen Link zum Zurücksetzen an ihre Adresse). Tu das nur, wenn du sicher bist, dass sie es ist (sie hat ihr Handy verloren).
admin-then-revoke-links = Alle Alben und Fotos, die die Person geteilt hat, lassen sich sofort nicht mehr über ihre Links öffnen. Ihre Fotos und Alben bleiben; sie kann wieder teilen.
admin-then-send-reset-link = Ein Link zum Festlegen eines neuen Passworts geht an { $address }; er funktioniert einmal, eine Stunde lang. Das bisherige Passwort gilt weiter, bis der Link benutzt wird.
admin-their-address = die Adresse der Person
admin-go-back = Nein, zurück

# API-Schlüssel.
admin-key-created = Schlüssel „{ $name }“ erstellt
admin-key-give = Gib der App diesen Namen und dieses Passwort.
admin-key-shown-once = Das Passwort wird nur jetzt angezeigt: Selfie speichert nur seinen Hash.
admin-key-source = Herkunft
admin-key-created-at = Erstellt
admin-last-used = Zuletzt benutzt
admin-key-from-environment = Umgebung (API_AUTH_NAME)
admin-key-added-here = hier hinzugefügt
admin-key-revoked = widerrufen am { $date }
admin-revoke = Widerrufen
admin-add-key = Einen Schlüssel hinzufügen
admin-key-name-hint = 3 bis 64 Buchstaben, Ziffern, Punkte, Bindestriche oder Unterstriche, z. B. android-app.
admin-create-key = Schlüssel erstellen
admin-revoke-question = Den App-Schlüssel { $name } widerrufen?
admin-then-revoke-key = Apps, die ihn benutzen, können sich nicht mehr registrieren, anmelden oder Tokens holen. Schon damit ausgestellte Tokens funktionieren für Fotos weiter, bis sie ablaufen, können aber kein Passwort mehr ändern.
admin-do-revoke-key = Ja, { $name } widerrufen

# Das Protokoll.
admin-user-id = Nutzer-ID
admin-event = Ereignis
admin-all-events = Alle Ereignisse
admin-filter = Filtern
admin-no-events = Keine Ereignisse.
admin-when = Wann
admin-by = Von wem
admin-about = Betrifft
admin-from = Woher
admin-older-events = Ältere Ereignisse →
admin-user-number = Nutzer #{ $id }

# E-Mail.
admin-mail-pending = { $count ->
    [one] Nachricht wartet auf Zustellung (wird mit wachsenden Abständen etwa 9 Stunden lang erneut versucht, bevor sie aufgegeben wird).
   *[other] Nachrichten warten auf Zustellung (werden mit wachsenden Abständen etwa 9 Stunden lang erneut versucht, bevor sie aufgegeben werden).
}
admin-mail-failed = Nicht zustellbar
admin-mail-all-delivered = Jede Nachricht wurde zugestellt.
admin-mail-to = An
admin-mail-message = Nachricht
admin-mail-queued = Eingereiht
admin-mail-given-up = Aufgegeben
admin-mail-attempts = Versuche
admin-mail-last-error = Letzter Fehler
admin-mail-ask-again = Die Empfänger können erneut fragen (ein neuer Link), sobald E-Mail funktioniert; das Server-Log enthält jeden Versuch.

# Integrität.
admin-integrity-intro = Das Original und die Varianten jedes Fotos im Abgleich mit dem Blob-Speicher: fehlende Dateien, Dateien, die kein Foto benutzt, und Dateien, deren Bytes sich seit dem Speichern geändert haben. „selfie check“ liest jede Datei; „selfie check --repair“ erzeugt Varianten neu und legt unbenutzte Dateien beiseite.
admin-integrity-never = Noch keine Prüfung gelaufen. Die leichte Prüfung läuft alle 6 Stunden; führe „selfie check“ für eine vollständige aus.
admin-check-full = Vollständige Prüfung (selfie check)
admin-check-light = Leichte Prüfung (alle 6 Stunden)
admin-check-finished = Beendet am { $finished } nach { $duration }: { $summary }.
admin-check-seconds = { $seconds } s
admin-check-blobs = { $count ->
    [one] 1 Blob im Speicher
   *[other] { $count } Blobs im Speicher
}
admin-check-checksums = { $count ->
    [one] 1 Prüfsumme geprüft
   *[other] { $count } Prüfsummen geprüft
}
admin-integrity-clean = Alles war in Ordnung.
admin-integrity-more = … und { $count } weitere: führe „selfie check“ aus.
admin-finding-photo = Foto { $photo } von { $owner } (Blob { $blob })
admin-finding-missing-original = Original fehlt: { $photo }; stelle es aus einer Sicherung wieder her
admin-finding-missing-rendition = Variante { $rendition } fehlt: { $photo }
admin-finding-corrupt-original = Original beschädigt: { $photo }: Seine Bytes passen nicht mehr zum SHA-256, der beim Speichern festgehalten wurde
admin-finding-corrupt-rendition = Variante { $rendition } beschädigt: { $photo }: Ihre Bytes passen nicht mehr zum SHA-256, der beim Speichern festgehalten wurde
admin-finding-orphan = Unbenutzter Blob { $blob }: Keine Fotozeile verweist darauf
admin-finding-moved-aside = { $finding } (beiseitegelegt)
admin-finding-remade = { $finding } (Varianten aus dem Original neu erzeugt)
