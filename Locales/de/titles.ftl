# Seitentitel: der <title> und auf den meisten Seiten die Überschrift.

title-account = Dein Konto
title-admin = Verwaltung
title-admin-api-keys = API-Schlüssel
title-admin-audit = Protokoll
title-admin-confirm = Bestätigen
title-admin-integrity = Integrität
title-admin-mail = E-Mail
title-admin-users = Nutzer
title-albums = Deine Alben
title-confirm-its-you = Bestätige, dass du es bist
title-delete-album = Dieses Album löschen?
title-delete-photo = Dieses Foto löschen?
title-forgot-password = Passwort vergessen?
title-gallery = Deine Galerie
title-link-created = Dein Freigabelink
title-links = Deine Freigabelinks
title-recovery-codes = Deine Wiederherstellungscodes
title-reset-password = Wähle ein neues Passwort
title-shared-password = Dieser Link hat ein Passwort
title-sign-in = Anmelden
title-sign-in-code = Gib deinen Code ein
title-sign-up = Konto erstellen
title-trash = Papierkorb
title-two-factor-setup = Bestätigung in zwei Schritten einrichten
title-upload = Ein Selfie hochladen
title-photo = Foto
title-delete-photos = { $count ->
    [one] Dieses Foto löschen?
   *[other] Diese { $count } Fotos löschen?
}
