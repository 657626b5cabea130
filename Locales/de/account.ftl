# Die Kontoseite.

field-current-password = Aktuelles Passwort
account-profile = Profil
account-name = Name
account-confirmed = Bestätigt
account-not-confirmed = Noch nicht bestätigt
account-member-since = Dabei seit
account-no-email = keine
account-unknown-address = unbekannt
account-never = nie
account-provider-account = Konto { $id }
account-storage = Speicher
storage-used-of = { $used } von { $quota } belegt ({ $percent } %)
storage-used-no-limit = { $used } belegt, ohne Grenze
storage-in-trash = { $count } im Papierkorb ({ $size })
photo-count = { $count ->
    [one] 1 Foto
   *[other] { $count } Fotos
}
account-storage-trash-counts = Der Papierkorb zählt mit, bis er geleert ist.
account-storage-counts = Es zählen die Originale und ihre Anzeigekopien.
account-storage-nearly-full = Dein Speicher ist fast voll. Lösche Fotos, die du nicht mehr brauchst, und leere den Papierkorb, um Platz zu schaffen.
account-change-password = Passwort ändern
account-set-a-password = Ein Passwort festlegen
account-set-password = Passwort festlegen
account-no-password = Du meldest dich über einen verknüpften Anbieter an. Lege ein Passwort fest, um dich auch mit E-Mail-Adresse oder Benutzername anzumelden.
account-username-hint = Dein Konto hat keine E-Mail-Adresse: Du meldest dich mit diesem Benutzernamen an. 5–30 Buchstaben, Ziffern oder Unterstriche.
account-new-password-hint = Mindestens 8 Zeichen. Deine anderen Sitzungen werden abgemeldet.
account-change-email = E-Mail-Adresse ändern
account-add-email = Eine E-Mail-Adresse hinzufügen
account-new-email = Neue E-Mail-Adresse
account-new-email-hint = Wir schicken einen Link an die neue Adresse. Dein Konto behält die bisherige Adresse, bis du ihn öffnest.
account-mail-confirmation = Bestätigungslink schicken
account-linked-methods = Verknüpfte Anmeldemethoden
account-linked-on = { $account } · verknüpft am { $date }
account-unlink = Trennen
account-unlink-provider = { $provider } trennen
account-no-provider = Mit deinem Konto ist kein Anbieter verknüpft.
account-set-password-first = Lege ein Passwort fest, bevor du deine einzige Anmeldemethode trennst.
account-link-provider = { $provider } verknüpfen
account-two-factor = Bestätigung in zwei Schritten
account-two-factor-intro = Beim Anmelden wird zusätzlich ein Code aus einer App auf deinem Handy abgefragt, sodass ein gestohlenes Passwort allein nicht reicht.
account-two-factor-set-up = Authenticator-App einrichten
account-on = An
account-two-factor-on = Beim Anmelden wird ein Code aus deiner Authenticator-App abgefragt.
account-recovery-codes-left = { $count ->
    [one] Noch 1 unbenutzter Wiederherstellungscode.
   *[other] Noch { $count } unbenutzte Wiederherstellungscodes.
}
account-code-from-app = Code aus deiner App
account-new-recovery-codes = Neue Wiederherstellungscodes erstellen
account-remembered-browsers = { $count ->
    [one] 1 Browser überspringt den Code vorerst.
   *[other] { $count } Browser überspringen den Code vorerst.
}
account-forget-browsers = Gemerkte Browser vergessen
account-code-or-recovery = Code aus deiner App oder ein Wiederherstellungscode
account-two-factor-off = Bestätigung in zwei Schritten ausschalten
account-passkeys = Passkeys
account-passkeys-intro = Ein Passkey meldet dich mit Fingerabdruck, Gesicht oder Bildschirmsperre deines Geräts an, statt mit Passwort und Code.
account-synced = Synchronisiert
account-passkey-dates = hinzugefügt am { $added } · zuletzt benutzt { $used }
account-passkey-new-name = Neuer Name für { $name }
account-rename = Umbenennen
account-remove = Entfernen
account-remove-passkey = Passkey { $name } entfernen
account-no-passkey = Du hast noch keinen Passkey.
account-add-passkey = Passkey hinzufügen
account-passkey-needs-js = Zum Hinzufügen eines Passkeys braucht es JavaScript.
account-sessions = Wo du angemeldet bist
account-this-browser = Dieser Browser
account-session-facts = IP { $address } · angemeldet am { $signedIn } · zuletzt aktiv { $active }
account-end-others = Überall sonst abmelden
account-no-other-sessions = Du bist sonst nirgends angemeldet.
account-language-and-time = Sprache und Zeit
account-save-choices = Speichern
account-time-zone = Zeiten werden in der Zeitzone { $zone } angezeigt, die dein Browser genannt hat (dort ist es jetzt { $now }).
account-time-zone-unknown = Zeiten werden in UTC angezeigt, bis dein Browser uns seine Zeitzone nennt (das tut er auf der nächsten Seite, die du öffnest).
account-your-data = Deine Daten
account-your-data-intro = Eine ZIP-Datei mit jedem Foto, das du hochgeladen hast, so wie du es hochgeladen hast, und den Angaben zu deinem Konto (account.json).
account-download-data = Meine Daten herunterladen
account-delete = Dein Konto löschen
account-delete-intro = Deine Fotos, deine Sitzungen und dein Konto werden endgültig gelöscht. Das lässt sich nicht rückgängig machen.
account-delete-password = Dein Passwort, zur Bestätigung
account-delete-recent = Du hast dich gerade erst angemeldet; das bestätigt, dass du es bist.
account-delete-sign-in-again = Um zu bestätigen, dass du es bist, melde dich erst ab und wieder an: Ein Konto ohne Passwort zu löschen braucht eine Anmeldung aus den letzten { $minutes } Minuten.
account-delete-submit = Mein Konto löschen

# Bestätigung in zwei Schritten: Bestätige, dass du es bist, der Code-Schritt, Einrichtung, Wiederherstellungscodes.
confirm-intro = Diese Änderung braucht einen Nachweis, dass du es wirklich bist: Deine letzte Anmeldung in diesem Browser ist eine Weile her.
confirm-your-password = Dein Passwort
confirm-code = Code aus deiner Authenticator-App oder ein Wiederherstellungscode
confirm-submit = Bestätigen
confirm-no-password = Dein Konto hat kein Passwort: Melde dich unten noch einmal an, um weiterzumachen.
confirm-passkey = Mit einem Passkey bestätigen
confirm-cancel = Abbrechen
recovery-first-set = Die Bestätigung in zwei Schritten ist an. Ab jetzt wird beim Anmelden ein Code aus deiner App abgefragt.
recovery-replaced = Diese ersetzen deine alten Wiederherstellungscodes, die nicht mehr funktionieren.
recovery-intro = Wenn du dein Handy verlierst, meldet dich jeder dieser Codes einmal an, statt eines Codes aus der App.
recovery-save-now = Speichere sie jetzt (drucke sie aus oder bewahre sie in einem Passwortmanager auf): Sie werden nur dieses eine Mal gezeigt.
recovery-label = Wiederherstellungscodes
recovery-saved = Ich habe sie gespeichert
code-intro = Öffne deine Authenticator-App und gib den 6-stelligen Code ein, den sie für Selfie zeigt. Kein Handy zur Hand? Gib einen deiner Wiederherstellungscodes ein.
code-label = Code
code-remember = In diesem Browser { $days } Tage lang nicht mehr fragen
code-submit = Prüfen
code-start-again = Von vorn beginnen
setup-step-app = Öffne eine Authenticator-App auf deinem Handy (Google Authenticator, Microsoft Authenticator, 1Password, Aegis …) und füge ein Konto hinzu.
setup-step-scan = Scanne damit diesen QR-Code:
setup-open-app = Auf diesem Handy? Zur Authenticator-App hinzufügen
setup-cant-scan = Scannen klappt nicht? Gib stattdessen diesen Schlüssel ein
setup-key-facts = Zeitbasiert, 6 Ziffern, alle 30 Sekunden.
setup-step-code = Gib den 6-stelligen Code ein, den die App zeigt:
setup-code = Code aus der App
setup-submit = Bestätigung in zwei Schritten einschalten
setup-not-now = Jetzt nicht
setup-qr-title = QR-Code zum Scannen mit deiner Authenticator-App

# A browser named from its User-Agent, on the account and admin pages (product names stay).
device-browser-on-system = { $browser } unter { $system }
device-system-only = Browser unter { $system }
device-unknown = Unbekannter Browser
