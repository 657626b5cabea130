# Anmelden und Registrieren, Passwörter, die Galerie, Hochladen, ein Foto.

field-email = E-Mail-Adresse
field-password = Passwort
field-password-confirmation = Passwort bestätigen
field-new-password = Neues Passwort
field-new-password-confirmation = Neues Passwort bestätigen
field-full-name = Vollständiger Name
field-username = Benutzername
field-optional = (freiwillig)
hint-username = 5–30 Buchstaben, Ziffern oder Unterstriche. Du kannst dich damit statt mit deiner E-Mail-Adresse anmelden.
hint-password = Mindestens 8 Zeichen.

sign-in-heading = Anmelden
sign-in-identifier = E-Mail-Adresse oder Benutzername
sign-in-submit = Anmelden
sign-in-forgot = Passwort vergessen?
sign-in-passkey = Mit einem Passkey anmelden
sign-in-new-here = Neu bei Selfie?
sign-in-create-account = Konto erstellen
provider-continue = Weiter mit { $provider }

sign-up-heading = Konto erstellen
sign-up-submit = Konto erstellen
sign-up-have-account = Du hast schon ein Konto?

forgot-intro = Gib die E-Mail-Adresse deines Kontos ein. Wir schicken dir einen Link, mit dem du ein neues Passwort wählst; er gilt eine Stunde.
forgot-submit = Link schicken
forgot-remembered = Doch wieder eingefallen?
reset-for = Für { $email }. Alle Browser und Apps, die bei diesem Konto angemeldet sind, werden abgemeldet.
reset-submit = Neues Passwort speichern

error-home = Zu Selfie

gallery-older-heading = Ältere Fotos
gallery-upload = Fotos hochladen
gallery-hello = Hallo, { $name }
gallery-empty = Deine Galerie ist leer. Lade dein erstes Selfie hoch: Nur du kannst es sehen.
gallery-upload-first = Erstes Selfie hochladen
gallery-older = Ältere Fotos →
gallery-newest = ← Neueste Fotos

selection-label = Ausgewählte Fotos
selection-intro = Wähle Fotos aus, um sie in ein Album zu legen, herunterzuladen oder zu löschen.
selection-all = Alle auswählen
selection-album = Album
selection-new-album = Ein neues Album …
selection-new-album-name = Name des neuen Albums
selection-add = Zum Album hinzufügen
selection-remove = Aus dem Album nehmen
selection-cover = Als Titelbild
selection-download = Originale herunterladen
selection-delete = Löschen …
selection-select-photo = „{ $photo }“ auswählen

upload-photos = Fotos
upload-hint = JPEG, PNG, GIF, WebP oder HEIC, jeweils bis { $size }. Du kannst sie auch hierher ziehen.
upload-caption = Bildunterschrift
upload-caption-hint = Gilt für jedes Foto dieses Uploads.
upload-list = Uploads
upload-submit = Hochladen
upload-back = Zurück zu deiner Galerie

photo-preparing = Dieses Foto wird vorbereitet.
photo-preparing-short = Wird vorbereitet …
photo-navigation = Fotonavigation
photo-newer = ← Neuer
photo-older = Älter →
photo-back-gallery = Zurück zu deiner Galerie
photo-back-album = Zurück zu { $album }
photo-taken = Aufgenommen am { $date }
photo-uploaded = Hochgeladen am { $date }
photo-in-albums = In
photo-download = Original herunterladen
photo-delete = Dieses Foto löschen …
photo-original-note = Nur du kannst das Original herunterladen: Es ist die Datei, wie du sie hochgeladen hast, mit allem, was deine Kamera hineingeschrieben hat (etwa wo das Foto aufgenommen wurde). Alles, was Selfie zeigt – hier und über Freigabelinks –, ist eine Kopie ohne diese Angaben.
photo-delete-to-trash = Es kommt in den Papierkorb: weg aus deiner Galerie, deinen Alben und Freigabelinks, und nach { $days } Tagen endgültig gelöscht, wenn du es nicht wiederherstellst.
photo-delete-for-good = Es ist dann endgültig weg, und sein Bildlink funktioniert nicht mehr.
photo-delete-yes = Ja, löschen
photo-delete-no = Nein, behalten
photo-from = Foto vom { $date }

# Hinweisseiten: Post prüfen, eine Adresse bestätigen, ein Link, der nicht mehr geht.
message-check-mail = Sieh in dein Postfach
message-sign-up-sent = Wir haben eine Nachricht an { $email } geschickt. Öffne ihren Link, um deine Adresse zu bestätigen, und melde dich dann an.
message-no-mail-yet = Nach ein paar Minuten noch keine E-Mail? Sieh im Spam-Ordner nach.
message-reset-sent = Wenn diese Adresse zu einem Selfie-Konto gehört, ist ein Link zum Wählen eines neuen Passworts unterwegs. Er gilt eine Stunde.
message-reset-no-mail = Nach ein paar Minuten noch keine E-Mail? Sieh im Spam-Ordner nach oder versuche es mit der Adresse, mit der du dich registriert hast.
message-back-to-sign-in = Zurück zur Anmeldung
message-confirm-email = Bestätige deine E-Mail-Adresse
message-confirm-email-intro = Bestätige, dass { $email } deine Adresse ist, damit Selfie dich erreichen kann (etwa um ein vergessenes Passwort zurückzusetzen).
message-confirm-email-button = { $email } bestätigen
message-confirm-new-email = Bestätige deine neue Adresse
message-confirm-new-email-intro = Dein Selfie-Konto verwendet ab jetzt { $email }: zum Anmelden und für E-Mails von Selfie.
message-confirm-new-email-button = { $email } verwenden
message-confirm-link-password = Gib zum Bestätigen dein Selfie-Passwort ein. Wenn du dich nicht bei Selfie registriert hast, ignoriere diese Seite: Ohne das Passwort ändert sich nichts.
message-confirm-link-sign-in = Melde dich zum Bestätigen in diesem Browser bei deinem Selfie-Konto an. Wenn du dich nicht bei Selfie registriert hast, ignoriere diese Seite: Es ändert sich nichts.
message-confirm-link-sign-in-button = Zum Bestätigen anmelden
message-link-dead = Dieser Link funktioniert nicht mehr
message-link-dead-intro = Dieser Link ist abgelaufen oder wurde schon benutzt. Es wurde nichts geändert; fordere einen neuen an.
message-link-dead-reset = Links zum Zurücksetzen funktionieren einmal, eine Stunde lang.
message-link-dead-other = Links funktionieren einmal und nur eine Weile.
message-mail-new-link = Neuen Link schicken
message-go-to-account = Zu deinem Konto

# Papierkorb, Alben, eine Auswahl löschen.
trash-intro = Gelöschte Fotos bleiben { $days } Tage hier – verborgen in deiner Galerie, deinen Alben und Freigabelinks –, dann werden sie endgültig gelöscht. „Wiederherstellen“ legt sie zurück, wo sie waren.
trash-empty = Der Papierkorb ist leer.
trash-selection-intro = Wähle Fotos aus, um sie wiederherzustellen oder endgültig zu löschen.
trash-restore = Wiederherstellen
trash-delete-for-good = Endgültig löschen
trash-restore-all = Alles im Papierkorb wiederherstellen
trash-showing-latest = Hier stehen die { $shown } zuletzt gelöschten von { $total } Fotos. „Alles wiederherstellen“ und „Papierkorb leeren“ nehmen alle.
trash-deleted-on = Gelöscht am { $date }
trash-gone-on = endgültig weg am { $date }
trash-empty-it = Papierkorb leeren …
trash-empty-warning = Jedes Foto hier wird sofort endgültig gelöscht. Das lässt sich nicht rückgängig machen.
trash-empty-confirm = Alle endgültig löschen
albums-none = Du hast noch keine Alben. Erstelle hier eins oder wähle Fotos in deiner Galerie aus und nimm „Zum Album hinzufügen“.
albums-go-to-gallery = Zu deiner Galerie
albums-new = Neues Album
albums-make = Album erstellen
album-description = Beschreibung
album-all = Alle Alben
album-empty = Dieses Album ist leer. Wähle Fotos in deiner Galerie aus und nimm „Zum Album hinzufügen“.
album-links = Links zu diesem Album
album-edit = Album umbenennen oder beschreiben
album-delete = Dieses Album löschen …
album-delete-heading = „{ $album }“ löschen?
album-delete-intro = Das Album und seine Freigabelinks verschwinden. Seine { $photos } bleiben in deiner Galerie.
album-delete-yes = Ja, Album löschen
photos-delete-to-trash = Sie kommen in den Papierkorb: weg aus deiner Galerie, jedem Album und jedem Freigabelink, und nach { $days } Tagen endgültig gelöscht, wenn du sie nicht wiederherstellst.
photos-delete-for-good = Sie sind dann endgültig weg – aus deiner Galerie, jedem Album und jedem Freigabelink –, und ihre Bildlinks funktionieren nicht mehr.
photos-delete-yes = { $count ->
    [one] Ja, dieses Foto löschen
   *[other] Ja, { $count } Fotos löschen
}
photos-delete-no = Nein, behalten

# Freigabelinks: die Liste, ein neuer Link, das Freigabeformular.
links-intro = Jeder Link zeigt ein Album oder ein Foto – Kopien ohne Metadaten, nie die Originale – jedem, der ihn hat, bis er abläuft oder du ihn abschaltest. Um einen zu erstellen, öffne ein Album oder ein Foto und wähle „Teilen“.
links-none = Noch keine Links.
links-shows = Zeigt
links-until = Gilt bis
links-download = Download
links-views = Aufrufe
links-last-view = Letzter Aufruf
links-turn-off = Abschalten
links-kind-album = Album
links-kind-photo = Foto
links-yes = Ja
links-no = Nein
links-allowed = Erlaubt
links-a-photo = Ein Foto
links-expired-on = Abgelaufen am { $date }
links-in-trash = Im Papierkorb: zeigt nichts, bis du das Foto wiederherstellst
links-never = Nie
links-not-yet = Noch nicht
link-ready = Dein Link ist bereit
link-shows = Er zeigt { $what } bis { $until }.
link-shows-with-password = Er zeigt { $what } bis { $until }, allen, die auch sein Passwort kennen.
link-label = Link
link-copy = Kopieren
link-copy-now = Kopiere ihn jetzt: Selfie behält nur einen Fingerabdruck davon und kann dir diesen Link nicht noch einmal zeigen. Abschalten kannst du ihn auf der Seite deiner Links.
link-back-to = Zurück zu { $what }
share-album = Dieses Album teilen
share-photo = Dieses Foto teilen
share-works-for = Der Link gilt
share-days = { $count ->
    [one] 1 Tag
   *[other] { $count } Tage
}
share-never = Unbegrenzt (bis du ihn abschaltest)
share-password-hint = Mindestens { $minimum } Zeichen. Wer den Link öffnet, muss es eingeben.
share-allow-download = Herunterladen der Fotos erlauben (Kopien ohne Metadaten)
share-copies-only = Der Link zeigt nur Kopien der Fotos: nie die Originaldateien, ihre Namen, wo sie aufgenommen wurden oder deine E-Mail-Adresse.
share-make = Link erstellen

# Was ein Freigabelink öffnet, für alle, die ihn haben.
shared-album = Geteiltes Album
shared-photo = Geteiltes Foto
shared-preview-title = Mit dir auf Selfie geteilte Fotos
shared-wrong-password = Das ist nicht das Passwort. Frag die Person, die den Link geteilt hat.
shared-back-to-album = Zurück zum Album
shared-download-all = Alle herunterladen
shared-note = Mit dir auf Selfie geteilt.
shared-more = Weitere Fotos →
shared-password-intro = Wer ihn mit dir geteilt hat, kennt es.
