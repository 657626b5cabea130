# Der Rahmen jeder Seite: Navigation, Hinweis zur Bestätigung, Auswahl in der Fußzeile.

nav-label = Hauptmenü
nav-skip = Zum Inhalt springen
nav-gallery = Galerie
nav-albums = Alben
nav-links = Links
nav-trash = Papierkorb
nav-admin = Verwaltung
nav-sign-out = Abmelden
nav-sign-in = Anmelden
nav-sign-up = Registrieren
banner-confirm-email = Bestätige deine E-Mail-Adresse mit dem Link, den wir geschickt haben an:
banner-send-again = Noch einmal senden
footer-language = Sprache
footer-theme = Farben
footer-apply = Übernehmen
theme-system = Wie mein Gerät
theme-light = Hell
theme-dark = Dunkel

status-400 = Ungültige Anfrage
status-401 = Berechtigung nötig
status-403 = Nicht erlaubt
status-404 = Nicht gefunden
status-405 = Hier nicht erlaubt
status-408 = Zu langsam
status-409 = Konflikt
status-410 = Nicht mehr vorhanden
status-413 = Zu groß
status-415 = Kein unterstützter Typ
status-416 = Außerhalb des Bereichs
status-422 = Bitte prüfe deine Eingaben
status-429 = Zu viele Versuche
status-500 = Etwas ist schiefgegangen
status-503 = Kurz nicht erreichbar
status-507 = Speicher voll
