# E-Mails: Betreffzeilen, die Wörter beider Teile und die Fußzeile des Layouts (Templates/mail/).
# Eine Nachricht auf -text ist nur für den Textteil, eine auf -html nur für den HTML-Teil: Dort
# sind <strong>…</strong> und <a href="{ $someLink }">…</a> das einzige erlaubte Markup. Die
# anderen Nachrichten gelten für beide Teile. Nach „Hallo …,“ geht es klein weiter.

mail-greeting = Hallo { $name },
mail-greeting-no-name = Hallo,
mail-or-open-link = Oder öffne diesen Link: { $link }
mail-footer = Diese Nachricht hat Selfie an { $recipient } geschickt. Sie betrifft dein Konto; du kannst sie nicht abbestellen.

# Browser oder App einer neuen Anmeldung, aus dem User-Agent (Produktnamen bleiben, wie sie sind),
# so wie sie in mail-new-sign-in-intro steht: „mit Chrome unter Linux“.
mail-device-browser-on-system = { $browser } unter { $system }
mail-device-system-only = einem Browser unter { $system }
mail-device-unknown = einem unbekannten Browser

mail-verify-email-subject = Bestätige deine E-Mail-Adresse für Selfie
mail-verify-email-ask-text = bitte bestätige, dass dies deine E-Mail-Adresse für Selfie ist, indem du diesen Link öffnest:
mail-verify-email-ask = bitte bestätige, dass dies deine E-Mail-Adresse für Selfie ist.
mail-verify-email-button = Meine Adresse bestätigen
mail-verify-email-expiry = Der Link funktioniert 48 Stunden lang und nur einmal. Wenn du kein Selfie-Konto angelegt hast, kannst du diese Nachricht ignorieren.

mail-password-reset-subject = Setze dein Selfie-Passwort zurück
mail-password-reset-intro = jemand – hoffentlich du – hat darum gebeten, das Passwort deines Selfie-Kontos zurückzusetzen.
mail-password-reset-intro-text = jemand – hoffentlich du – hat darum gebeten, das Passwort deines Selfie-Kontos zurückzusetzen. Hier wählst du ein neues Passwort:
mail-password-reset-button = Neues Passwort wählen
mail-password-reset-expiry = Der Link funktioniert eine Stunde lang und nur einmal. Wenn du ein neues Passwort festlegst, wirst du überall abgemeldet. Wenn du das nicht angefordert hast, ignoriere diese Nachricht: Dein Passwort bleibt, wie es ist.

mail-confirm-new-email-subject = Bestätige deine neue E-Mail-Adresse für Selfie
mail-confirm-new-email-ask-text = bitte bestätige, dass { $newEmail } die E-Mail-Adresse deines Selfie-Kontos werden soll:
mail-confirm-new-email-ask-html = bitte bestätige, dass <strong>{ $newEmail }</strong> die E-Mail-Adresse deines Selfie-Kontos werden soll.
mail-confirm-new-email-button = Diese Adresse verwenden
mail-confirm-new-email-expiry = Der Link funktioniert 24 Stunden lang und nur einmal. Bis du ihn öffnest, behält dein Konto seine bisherige Adresse. Wenn du das nicht angefordert hast, ignoriere diese Nachricht.

mail-email-change-requested-subject = Dein Selfie-Konto soll eine neue Adresse bekommen
mail-email-change-requested-intro-text = jemand, der bei deinem Selfie-Konto angemeldet ist, möchte es auf die Adresse { $newEmail } umstellen. Dein Konto behält diese Adresse, bis die neue bestätigt ist.
mail-email-change-requested-intro-html = jemand, der bei deinem Selfie-Konto angemeldet ist, möchte es auf die Adresse <strong>{ $newEmail }</strong> umstellen. Dein Konto behält diese Adresse, bis die neue bestätigt ist.
mail-email-change-requested-not-you-text = Wenn du das nicht warst, ändere jetzt dein Passwort: { $forgotLink }
mail-email-change-requested-not-you-html = Wenn du das nicht warst, <a href="{ $forgotLink }">ändere jetzt dein Passwort</a>.

mail-email-changed-subject = Die E-Mail-Adresse deines Selfie-Kontos wurde geändert
mail-email-changed-intro-text = dein Selfie-Konto verwendet jetzt die Adresse { $newEmail }. Mit dieser Adresse ({ $recipient }) kann man sich nicht mehr anmelden.
mail-email-changed-intro-html = dein Selfie-Konto verwendet jetzt die Adresse <strong>{ $newEmail }</strong>. Mit dieser Adresse ({ $recipient }) kann man sich nicht mehr anmelden.
mail-email-changed-not-you-text = Wenn du das nicht warst, kann sich jetzt jemand anderes in dein Konto einloggen, und ein Zurücksetzen des Passworts ginge an dessen Adresse: wende dich sofort an die Leute, die dieses Selfie betreiben, damit sie das Konto sperren.
mail-email-changed-not-you-html = Wenn du das nicht warst, kann sich jetzt jemand anderes in dein Konto einloggen, und ein Zurücksetzen des Passworts ginge an dessen Adresse: wende dich sofort an die Leute, die dieses Selfie betreiben, damit sie das Konto sperren.

mail-password-changed-subject = Dein Selfie-Passwort wurde geändert
mail-password-changed-intro = das Passwort deines Selfie-Kontos wurde gerade geändert, und deine anderen Sitzungen wurden abgemeldet.
mail-password-changed-not-you-text = Wenn du das nicht warst, setze jetzt dein Passwort zurück: { $forgotLink }
mail-password-changed-not-you-html = Wenn du das nicht warst, <a href="{ $forgotLink }">setze jetzt dein Passwort zurück</a>.

mail-provider-linked-subject = Mit { $provider } kann man sich jetzt bei deinem Selfie-Konto anmelden
mail-provider-linked-intro-text = mit { $provider } kann man sich jetzt bei deinem Selfie-Konto anmelden.
mail-provider-linked-intro-html = mit <strong>{ $provider }</strong> kann man sich jetzt bei deinem Selfie-Konto anmelden.
mail-provider-linked-not-you-text = Wenn du das nicht warst, melde dich an, trenne die Verknüpfung auf deiner Kontoseite ({ $accountLink }) und ändere dein Passwort.
mail-provider-linked-not-you-html = Wenn du das nicht warst, melde dich an, trenne die Verknüpfung auf <a href="{ $accountLink }">deiner Kontoseite</a> und ändere dein Passwort.

mail-account-deleted-subject = Dein Selfie-Konto wurde gelöscht
mail-account-deleted-intro = dein Selfie-Konto und alle seine Fotos wurden gelöscht, wie du es wolltest. Mach’s gut, und danke, dass du Selfie benutzt hast.
mail-account-deleted-not-you = Wenn du das nicht veranlasst hast, wende dich an die Leute, die dieses Selfie betreiben.

mail-sign-up-attempted-subject = Jemand wollte sich mit deiner Adresse bei Selfie registrieren
mail-sign-up-attempted-intro = jemand hat gerade versucht, mit dieser Adresse ein neues Selfie-Konto anzulegen. Du hast schon eins.
mail-sign-up-attempted-you-text = Wenn du das warst: Melde dich unter { $signInLink } an, oder wähle unter { $forgotLink } ein neues Passwort, falls du es vergessen hast.
mail-sign-up-attempted-you-html = Wenn du das warst: <a href="{ $signInLink }">Melde dich an</a>, oder <a href="{ $forgotLink }">wähle ein neues Passwort</a>, falls du es vergessen hast.
mail-sign-up-attempted-not-you = Wenn du das nicht warst, kannst du diese Nachricht ignorieren: Es wurde nichts geändert.

mail-new-sign-in-subject = Eine neue Anmeldung bei deinem Selfie-Konto
mail-new-sign-in-intro-text = bei deinem Selfie-Konto hat sich gerade jemand mit { $device } angemeldet, aus einem Netz, das es bisher nicht benutzt hat ({ $network }).
mail-new-sign-in-intro-html = bei deinem Selfie-Konto hat sich gerade jemand mit <strong>{ $device }</strong> angemeldet, aus einem Netz, das es bisher nicht benutzt hat ({ $network }).
mail-new-sign-in-not-you-text = Wenn du das warst, musst du nichts tun. Wenn nicht, öffne deine Kontoseite ({ $sessionsLink }), melde die anderen Sitzungen ab und ändere dein Passwort.
mail-new-sign-in-not-you-html = Wenn du das warst, musst du nichts tun. Wenn nicht, öffne <a href="{ $sessionsLink }">deine Kontoseite</a>, melde die anderen Sitzungen ab und ändere dein Passwort.

# Änderungen an der Sicherheit: je ein Betreff und ein Satz; { $name } ist der Name des Passkeys
# oder des Anbieters.
mail-security-change-not-you-text = Wenn du das nicht warst, melde dich an, prüfe deine Kontoseite ({ $accountLink }), ändere dein Passwort und melde dich überall ab.
mail-security-change-not-you-html = Wenn du das nicht warst, melde dich an, prüfe <a href="{ $accountLink }">deine Kontoseite</a>, ändere dein Passwort und melde dich überall ab.
mail-security-two-factor-enabled-subject = Die Bestätigung in zwei Schritten ist für dein Selfie-Konto eingeschaltet
mail-security-two-factor-enabled = Die Bestätigung in zwei Schritten wurde eingeschaltet: Beim Anmelden wird jetzt auch ein Code aus deiner Authenticator-App abgefragt.
mail-security-two-factor-disabled-subject = Die Bestätigung in zwei Schritten wurde für dein Selfie-Konto ausgeschaltet
mail-security-two-factor-disabled = Die Bestätigung in zwei Schritten wurde ausgeschaltet: Zum Anmelden brauchst du wieder nur dein Passwort.
mail-security-recovery-codes-regenerated-subject = Neue Wiederherstellungscodes für dein Selfie-Konto
mail-security-recovery-codes-regenerated = Für dein Konto wurden neue Wiederherstellungscodes erstellt; die alten funktionieren nicht mehr.
mail-security-passkey-added-subject = Deinem Selfie-Konto wurde ein Passkey hinzugefügt
mail-security-passkey-added = Deinem Konto wurde ein Passkey („{ $name }“) hinzugefügt: Mit ihm kann man sich ohne dein Passwort anmelden.
mail-security-passkey-removed-subject = Ein Passkey wurde von deinem Selfie-Konto entfernt
mail-security-passkey-removed = Der Passkey „{ $name }“ wurde von deinem Konto entfernt.
mail-security-provider-unlinked-subject = Eine Anmeldemethode wurde von deinem Selfie-Konto getrennt
mail-security-provider-unlinked = { $name } wurde von deinem Konto getrennt; damit kann man sich nicht mehr anmelden.
mail-security-two-factor-reset-subject = Die Verwaltung hat die Bestätigung in zwei Schritten für dein Selfie-Konto zurückgesetzt
mail-security-two-factor-reset = Jemand aus der Verwaltung hat deine Authenticator-App und deine Passkeys entfernt: Du meldest dich jetzt allein mit deinem Passwort an und kannst beides neu einrichten. Noch kein Passwort? Wähle eins über „Passwort vergessen?“ auf der Anmeldeseite: Der Link geht an diese Adresse.
mail-security-unknown-subject = Die Sicherheitseinstellungen deines Selfie-Kontos haben sich geändert
mail-security-unknown = Eine Sicherheitseinstellung deines Kontos hat sich geändert.
