# Was eine Ablehnung sagt (Sources/App/Shared/ErrorCopy.swift), auf Seiten in der Sprache der Person.

error-body-cut-short = Die Anfrage endete, bevor ihr ganzer Inhalt angekommen war.
error-storage-unavailable = Der Fotospeicher ist gerade nicht erreichbar. Bitte versuche es gleich noch einmal.
error-storage-full = Der Fotospeicher ist gerade voll. Bitte versuche es später noch einmal.
error-status-400 = Die Anfrage war nicht verständlich.
error-status-401 = Melde dich zuerst an.
error-status-403 = Darauf hast du keinen Zugriff.
error-status-404 = Unter dieser Adresse gibt es nichts.
error-status-405 = Diese Adresse nimmt diese Art von Anfrage nicht an.
error-status-408 = Die Anfrage hat zu lange gebraucht. Bitte versuche es noch einmal.
error-status-413 = Das ist zu groß.
error-status-415 = Diese Art von Datei wird nicht angenommen.
error-status-429 = Zu viele Versuche. Warte kurz und versuche es dann noch einmal.
error-status-503 = Selfie ist gerade kurz nicht erreichbar. Bitte versuche es gleich noch einmal.
error-status-500 = Bei uns ist etwas schiefgegangen. Bitte versuche es noch einmal.
error-query-number = Der Parameter { $name } muss eine ganze Zahl von { $minimum } bis { $maximum } sein.
error-query-position = Der Parameter { $name } ist keine Stelle in der Galerie. Geh zurück zu den neuesten Fotos und blättere von dort.
error-media-none = Dieses Bild gibt es nicht.
error-media-link-invalid = Dieser Bildlink ist nicht gültig.
error-media-link-expired = Dieser Bildlink ist abgelaufen. Lade die Seite neu, um einen frischen zu bekommen.
error-media-gone = Dieses Foto gibt es nicht mehr.

error-code-required = Gib den 6-stelligen Code aus deiner Authenticator-App oder einen deiner Wiederherstellungscodes ein.
error-code-incorrect = Dieser Code stimmt nicht oder wurde schon benutzt. Gib den aktuellen Code aus deiner Authenticator-App oder einen unbenutzten Wiederherstellungscode ein.
error-setup-code-incorrect = Dieser Code stimmt nicht. Gib den 6-stelligen Code ein, den deine App gerade zeigt (und prüfe, ob die Uhr des Telefons automatisch gestellt wird).
error-two-factor-off = Die Bestätigung in zwei Schritten ist für dieses Konto nicht eingeschaltet.
error-two-factor-on = Die Bestätigung in zwei Schritten ist für dieses Konto schon eingeschaltet.
error-sign-in-expired = Diese Anmeldung ist abgelaufen. Bitte melde dich noch einmal an.
error-passkey-refused = Der Passkey konnte nicht benutzt werden. Bitte versuche es noch einmal.
error-passkey-not-found = Einen solchen Passkey gibt es in deinem Konto nicht.
error-passkey-name = Gib dem Passkey einen Namen mit 1 bis 100 Zeichen.
error-passkey-last-way-in = Dieser Passkey ist deine einzige Möglichkeit, dich anzumelden. Lege ein Passwort fest oder verknüpfe einen Anbieter, bevor du ihn entfernst.

error-invalid-credentials = E-Mail-Adresse oder Passwort ist falsch.
error-account-disabled = Dieses Konto wurde gesperrt.
error-email-not-verified = Bestätige zuerst deine E-Mail-Adresse: Wir haben einen neuen Link an { $email } geschickt. Öffne ihn und melde dich dann an.
error-email-not-verified-no-new-link = Bestätige zuerst deine E-Mail-Adresse mit einem Link, den wir früher an { $email } geschickt haben (heute können keine weiteren gesendet werden). Öffne ihn und melde dich dann an.
error-last-administrator = Du bist die letzte Person mit Verwaltungsrechten. Gib sie jemand anderem, bevor du dein Konto löschst.
error-confirm-its-you = Zu deiner Sicherheit: Bestätige, dass du es bist. Melde dich noch einmal an (es ist eine Weile her) und versuche es dann erneut.
error-export-in-progress = Eine Kopie deiner Daten wird gerade heruntergeladen. Warte, bis das fertig ist, und versuche es dann noch einmal.
error-confirm-address-first = Bestätige zuerst deine E-Mail-Adresse: Öffne den Link, den wir dir geschickt haben (deine Kontoseite kann ihn noch einmal schicken).
error-sign-in-to-use-link = Melde dich in diesem Browser bei dem Konto an, für das der Link ist, und öffne den Link dann noch einmal.

error-field-name-missing = Gib deinen Namen ein.
error-field-missing = Das ist ein Pflichtfeld.
error-field-current-password-missing = Gib zum Bestätigen dein Selfie-Passwort ein.
error-field-too-long = Verwende höchstens { $maximum } Zeichen.
error-field-name-characters = Verwende nur Buchstaben, Leerzeichen und Satzzeichen.
error-field-control-characters = Verwende nur Buchstaben, Ziffern, Leerzeichen und Symbole (keine Steuerzeichen).
error-field-not-an-email = Gib eine E-Mail-Adresse wie name@example.com ein.
error-field-email-ascii = Verwende eine Adresse nur aus den Buchstaben a–z, Ziffern und . _ - +; für eine internationale Domain ihre xn---Form.
error-field-length = Verwende { $minimum } bis { $maximum } Zeichen.
error-field-username-characters = Verwende nur Buchstaben, Ziffern und Unterstriche (_).
error-field-password-short = Verwende mindestens { $minimum } Zeichen.
error-field-password-long = Verwende höchstens { $maximum } Bytes (etwa { $maximum } Buchstaben; weniger mit Akzenten oder Emoji).
error-field-passwords-differ = Die beiden Passwörter stimmen nicht überein.
error-field-email-taken = Es gibt schon ein Konto mit dieser E-Mail-Adresse. Möchtest du dich stattdessen anmelden?
error-field-username-taken = Dieser Benutzername ist vergeben. Wähle einen anderen.
error-field-current-password = Das ist nicht dein aktuelles Passwort.
error-field-incorrect = Das stimmt nicht.
error-field-email-unchanged = Das ist schon deine E-Mail-Adresse.
error-field-unchanged = Das ist der aktuelle Wert.
error-field-username-required = Wähle einen Benutzernamen: Dein Konto hat keine E-Mail-Adresse, also meldest du dich damit an.
error-field-named = { $field }: { $problem }

error-too-many-sign-ins = { $minutes ->
    [one] Zu viele fehlgeschlagene Anmeldungen für dieses Konto. Versuche es in einer Minute noch einmal.
   *[other] Zu viele fehlgeschlagene Anmeldungen für dieses Konto. Versuche es in { $minutes } Minuten noch einmal.
}
error-too-many-attempts = { $minutes ->
    [one] Zu viele Versuche aus deinem Netz. Versuche es in einer Minute noch einmal.
   *[other] Zu viele Versuche aus deinem Netz. Versuche es in { $minutes } Minuten noch einmal.
}
error-too-many-of-yours = { $minutes ->
    [one] Das hast du zu oft angefordert. Versuche es in einer Minute noch einmal.
   *[other] Das hast du zu oft angefordert. Versuche es in { $minutes } Minuten noch einmal.
}
error-too-many-link-passwords = { $minutes ->
    [one] Zu viele falsche Passwörter für diesen Link. Versuche es in einer Minute noch einmal.
   *[other] Zu viele falsche Passwörter für diesen Link. Versuche es in { $minutes } Minuten noch einmal.
}

error-photo-not-multipart = Schicke das Foto als multipart/form-data mit einem Teil `image`.
error-photo-malformed = Der Upload war nicht lesbar. Bitte versuche es noch einmal.
error-photo-missing = Wähle ein Foto zum Hochladen.
error-photo-several = Schicke ein Foto pro Upload.
error-photo-several-titles = Schicke eine Bildunterschrift pro Upload.
error-photo-not-an-image = Nur JPEG-, PNG-, GIF-, WebP- und HEIC-Fotos können hochgeladen werden.
error-photo-too-large = Dieses Foto ist zu groß: Die Grenze liegt bei { $limit }.
error-photo-over-quota = Dieses Foto passt nicht mehr in deinen Speicher: { $available } von { $quota } frei. Lösche Fotos, die du nicht mehr brauchst, und leere den Papierkorb, um Platz zu schaffen.
error-caption-too-long = Verwende höchstens { $maximum } Zeichen für die Bildunterschrift.
error-caption-characters = Die Bildunterschrift enthält Zeichen, die sich nicht anzeigen lassen.
error-photo-not-found = Ein solches Foto gibt es nicht.
error-uploads-in-progress = Es laufen zu viele Uploads. Warte, bis einer fertig ist, und versuche es dann noch einmal.
error-upload-timed-out = Der Upload hat zu lange gebraucht. Bitte versuche es mit einer besseren Verbindung noch einmal.
error-body-timed-out = Die Anfrage hat zu lange gebraucht. Bitte versuche es noch einmal.
error-processing-unavailable = Das Foto konnte gerade nicht verarbeitet werden. Bitte versuche es gleich noch einmal.

error-album-not-found = Ein solches Album gibt es nicht.
error-album-name-missing = Gib dem Album einen Namen.
error-album-name-too-long = Verwende höchstens { $maximum } Zeichen für den Namen des Albums.
error-album-description-too-long = Verwende höchstens { $maximum } Zeichen für die Beschreibung.
error-album-characters = Name oder Beschreibung enthalten Zeichen, die sich nicht anzeigen lassen.
error-album-cover = Das Titelbild muss eines der Fotos des Albums sein.
error-select-photos = Wähle zuerst mindestens ein Foto aus.
error-select-fewer = Wähle höchstens { $maximum } Fotos auf einmal aus.
error-too-many-albums = Du hast { $maximum } Alben, mehr kann ein Konto nicht haben. Lösche eines, um ein neues anzulegen.

error-link-not-found = Diesen Link gibt es nicht, er ist abgelaufen oder wurde abgeschaltet. Bitte die Person, die ihn geteilt hat, um einen neuen.
error-own-link-not-found = Einen solchen Link hast du nicht: vielleicht wurde er schon abgeschaltet.
error-link-expiry = Wähle, wie lange der Link gilt: 1, 7 oder 30 Tage oder unbegrenzt.
error-link-target = Wähle ein Album oder ein Foto zum Teilen.
error-link-password-problem = Das Passwort des Links: { $problem }
error-link-password-required = Dieser Link hat ein Passwort. Öffne den Link und gib es zuerst ein.
error-link-wrong-password = Das ist nicht das Passwort des Links.
error-link-no-download = Wer diese Fotos geteilt hat, hat das Herunterladen nicht erlaubt.

error-image-format = Das Format dieses Fotos lässt sich nicht lesen. Verwende JPEG, PNG, GIF, WebP oder HEIC.
error-image-unreadable = Dieses Foto ließ sich nicht lesen: Die Datei ist beschädigt.
error-image-truncated = Dieses Foto ist unvollständig: Die Datei wurde abgeschnitten. Bitte lade es noch einmal hoch.
error-image-megapixels = Dieses Bild hat zu viele Pixel: höchstens { $maximum } Megapixel.
error-image-pixels = Dieses Bild hat zu viele Pixel: höchstens { $maximum } Pixel.
error-image-aspect = Dieses Bild ist zu schmal oder zu hoch zum Anzeigen (mehr als 20 zu 1).

error-provider-not-configured = Die Anmeldung mit „{ $provider }“ ist hier nicht verfügbar.
error-provider-unavailable = { $provider } war nicht erreichbar, um deine Anmeldung zu prüfen. Versuche es gleich noch einmal.
error-provider-refused = Anmeldung über { $provider } abgelehnt: { $reason }.
error-social-registered = Dieses { $provider }-Konto ist schon registriert. Melde dich stattdessen an.
error-social-not-registered = Mit diesem { $provider }-Konto ist kein Selfie-Konto verknüpft. Registriere dich zuerst.
error-social-email-in-use = Es gibt schon ein Konto mit der E-Mail-Adresse { $email }. Melde dich dort mit deinem Passwort an und verknüpfe dann { $provider } auf deiner Kontoseite.
error-social-linked-elsewhere = Dieses { $provider }-Konto ist schon mit einem anderen Selfie-Konto verknüpft.
error-social-not-linked = Diese Anmeldemethode ist nicht mit deinem Konto verknüpft.
error-social-last-way-in = Das ist deine einzige Möglichkeit, dich anzumelden. Lege zuerst ein Passwort fest und trenne sie dann.
error-social-flow-expired = Diese Anmeldung ist abgelaufen oder wurde schon benutzt. Bitte fang noch einmal an.

error-admin-last-admin = Das ist die letzte Person mit Verwaltungsrechten. Gib sie zuerst jemand anderem.
error-admin-unconfirmed-address = Dieses Konto hat seine Adresse nicht bestätigt und kann deshalb nicht zur Verwaltung gehören: Jeder kann sich mit einer fremden Adresse registrieren. Es muss zuerst den Bestätigungslink öffnen.
error-admin-no-such-user = Diese Person gibt es (nicht mehr).
error-admin-key-name = Verwende für den Namen 3 bis 64 Buchstaben, Ziffern, Punkte, Bindestriche oder Unterstriche.
error-admin-key-reserved = Dieser Name gehört zum Schlüssel aus der Umgebung.
error-admin-key-taken = Es gibt schon einen App-Schlüssel mit diesem Namen.
error-admin-quota = Gib das Kontingent als ganze Zahl in MB an, mindestens 1.
error-admin-no-such-key = Es gibt keinen aktiven App-Schlüssel mit diesem Namen (den Schlüssel aus der Umgebung kann man hier nicht widerrufen).

# Die eigenen Ablehnungen der Seiten.
error-csrf = Dieses Formular ist abgelaufen oder kam nicht von Selfie. Geh zurück, lade die Seite neu und versuche es noch einmal.
error-sign-in-incorrect = E-Mail-Adresse, Benutzername oder Passwort stimmt nicht.
error-passkey-sign-in = Dieser Passkey konnte dich nicht anmelden. Versuche es noch einmal oder melde dich mit deinem Passwort an.
error-address-taken-meanwhile = Ein anderes Konto hat diese Adresse inzwischen übernommen, also behält deins seine bisherige Adresse.
error-selection-album-name = Gib dem neuen Album einen Namen oder wähle eines deiner Alben.
error-selection-remove-needs-album = Zum Herausnehmen von Fotos braucht es das Album, in dem sie sind.
error-selection-cover-needs-album = Ein Titelbild braucht das Album, zu dem es gehört.
error-selection-one-cover = Wähle genau ein Foto aus, um es zum Titelbild des Albums zu machen.
error-selection-action = Wähle, was mit den ausgewählten Fotos geschehen soll.
error-trash-action = Wähle, ob die ausgewählten Fotos wiederhergestellt oder endgültig gelöscht werden sollen.
error-provider-flow-browser = Diese Anmeldung wurde nicht in diesem Browser begonnen oder ist abgelaufen. Bitte fang noch einmal an.
error-provider-link-account = Melde dich bei dem Konto an, das du verknüpfen wolltest, und versuche es dann noch einmal.
error-preferences = Wähle eine Sprache oder Farben aus den Listen.
error-too-many-links-today = Wir haben dir heute schon mehrere Links geschickt. Nimm einen davon oder versuche es morgen noch einmal.
error-admins-only = Diese Seite ist für Personen mit Verwaltungsrechten.
error-admin-quota-choice = Wähle das Standardkontingent, keine Grenze oder eine Zahl in MB.
error-admin-is-last-admin = { $user } ist die letzte Person mit Verwaltungsrechten. Gib sie zuerst jemand anderem.
error-admin-reset-last-way-in = Passkeys sind die einzige Möglichkeit, sich bei { $user } anzumelden, und das Konto hat keine E-Mail-Adresse für einen Link zum Zurücksetzen: Ohne sie wäre das Konto für immer gesperrt. Sie bleiben; deaktiviere das Konto, wenn ein Passkey gestohlen wurde.
error-admin-no-user = Diese Person gibt es nicht.
