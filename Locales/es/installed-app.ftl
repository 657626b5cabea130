# La app instalada: la página sin conexión, el manifiesto, las fotos compartidas con Selfie desde otra app.

title-offline = Sin conexión
offline-heading = Sin conexión
offline-text = Ahora mismo no se puede llegar a Selfie. Tus fotos no se guardan en este dispositivo: vuelve a conectarte para verlas.
offline-retry = Intentar de nuevo
manifest-description = Tus fotos, privadas, en cualquier dispositivo.
notice-share-again = Tus fotos no llegaron a Selfie. Vuelve a elegirlas aquí y pulsa «Subir».
js-shared-ready = { $count ->
    [one] La foto que compartiste está lista: añade un pie de foto si quieres y pulsa «Subir».
   *[other] Las { $count } fotos que compartiste están listas: añade un pie de foto si quieres y pulsa «Subir».
}
