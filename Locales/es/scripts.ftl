# Palabras de los scripts de la página (Public/assets/js).

js-upload-network-error = La subida ha fallado. Comprueba tu conexión y vuelve a intentarlo.
js-upload-server-error = La subida ha fallado. Recarga la página y vuelve a intentarlo.
js-uploading-file = Subiendo { $file }
js-upload-too-large = Esta foto pesa más de { $size }.
js-upload-ready = Lista
js-upload-done = Subida
js-upload-open = Abrir
js-upload-open-file = Abrir { $file }
js-upload-pause = Pausar
js-upload-pause-file = Pausar { $file }
js-upload-resume = Reanudar
js-upload-resume-file = Reanudar { $file }
js-uploading = Subiendo: { $percent } %
js-upload-retrying = Conexión perdida: se reintenta en { $seconds } s
js-upload-busy = Selfie está ocupado: se reintentará en { $seconds } s
js-upload-paused = En pausa al { $percent } %
js-upload-waiting = En espera
js-upload-see-gallery = Verlas en tu galería
js-upload-summary = { $count ->
    [one] 1 foto subida.
   *[other] { $count } fotos subidas.
}
js-upload-summary-failed = { $count ->
    [one] 1 foto subida, { $failed } con error.
   *[other] { $count } fotos subidas, { $failed } con error.
}
js-upload-retry-failed = { $count ->
    [one] Volver a enviar la foto que falló
   *[other] Volver a enviar las { $count } fotos que fallaron
}
js-bytes = { $count } bytes
js-photos-selected = { $count ->
    [one] 1 foto seleccionada
   *[other] { $count } fotos seleccionadas
}
js-clear-selection = Quitar la selección
js-select-all = Seleccionar todo
js-album-needs-name = Ponle un nombre al álbum nuevo.
js-passkey-creating = Sigue las instrucciones de tu navegador para crear la llave de acceso…
js-passkey-not-added = La llave de acceso no se ha añadido. Puedes volver a intentarlo.
js-passkey-using = Sigue las instrucciones de tu navegador para usar tu llave de acceso…
js-passkey-failed = No ha funcionado. Vuelve a intentarlo o inicia sesión con tu contraseña.
js-copied = Copiado
