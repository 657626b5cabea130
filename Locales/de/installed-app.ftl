# Die installierte App: die Offline-Seite, das Manifest, aus einer anderen App an Selfie geteilte Fotos.

title-offline = Keine Verbindung
offline-heading = Keine Verbindung
offline-text = Selfie ist gerade nicht erreichbar. Deine Fotos liegen nicht auf diesem Gerät: Verbinde dich wieder, um sie zu sehen.
offline-retry = Noch einmal versuchen
manifest-description = Deine Fotos, privat, auf jedem Gerät.
notice-share-again = Deine Fotos sind nicht bei Selfie angekommen. Wähle sie hier noch einmal aus und tippe auf „Hochladen“.
js-shared-ready = { $count ->
    [one] Das geteilte Foto ist bereit: Füge eine Bildunterschrift hinzu, wenn du magst, und tippe auf „Hochladen“.
   *[other] Die { $count } geteilten Fotos sind bereit: Füge eine Bildunterschrift hinzu, wenn du magst, und tippe auf „Hochladen“.
}
