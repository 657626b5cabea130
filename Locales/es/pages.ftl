# Iniciar sesión y crear cuenta, contraseñas, la galería, subir fotos, una foto.

field-email = Correo electrónico
field-password = Contraseña
field-password-confirmation = Confirma la contraseña
field-new-password = Contraseña nueva
field-new-password-confirmation = Confirma la contraseña nueva
field-full-name = Nombre completo
field-username = Nombre de usuario
field-optional = (opcional)
hint-username = De 5 a 30 letras, cifras o guiones bajos. Puedes usarlo para iniciar sesión en lugar de tu correo.
hint-password = Al menos 8 caracteres.

sign-in-heading = Iniciar sesión
sign-in-identifier = Correo o nombre de usuario
sign-in-submit = Iniciar sesión
sign-in-forgot = ¿Has olvidado tu contraseña?
sign-in-passkey = Iniciar sesión con una llave de acceso
sign-in-new-here = ¿Es tu primera vez en Selfie?
sign-in-create-account = Crea una cuenta
provider-continue = Continuar con { $provider }

sign-up-heading = Crea tu cuenta
sign-up-submit = Crear cuenta
sign-up-have-account = ¿Ya tienes una cuenta?

forgot-intro = Escribe la dirección de correo de tu cuenta. Te enviaremos un enlace para elegir una contraseña nueva; sirve durante una hora.
forgot-submit = Enviarme un enlace
forgot-remembered = ¿Ya la recuerdas?
reset-for = Para { $email }. Se cerrará la sesión en todos los navegadores y apps conectados a esta cuenta.
reset-submit = Guardar la contraseña nueva

error-home = Ir a Selfie

gallery-older-heading = Fotos anteriores
gallery-upload = Subir fotos
gallery-hello = Hola, { $name }
gallery-empty = Tu galería está vacía. Sube tu primer selfie: solo tú puedes verlo.
gallery-upload-first = Sube tu primer selfie
gallery-older = Fotos anteriores →
gallery-newest = ← Fotos más recientes

selection-label = Fotos seleccionadas
selection-intro = Selecciona fotos para ponerlas en un álbum, descargarlas o eliminarlas.
selection-all = Seleccionar todo
selection-album = Álbum
selection-new-album = Un álbum nuevo…
selection-new-album-name = Nombre del álbum nuevo
selection-add = Añadir al álbum
selection-remove = Quitar del álbum
selection-cover = Poner de portada
selection-download = Descargar los originales
selection-delete = Eliminar…
selection-select-photo = Seleccionar «{ $photo }»

upload-photos = Fotos
upload-hint = JPEG, PNG, GIF, WebP o HEIC, de hasta { $size } cada una. También puedes arrastrarlas aquí.
upload-caption = Pie de foto
upload-caption-hint = Se pone a todas las fotos de esta subida.
upload-list = Subidas
upload-submit = Subir
upload-back = Volver a tu galería

photo-preparing = Esta foto se está preparando.
photo-preparing-short = Preparando…
photo-navigation = Navegación de fotos
photo-newer = ← Más reciente
photo-older = Anterior →
photo-back-gallery = Volver a tu galería
photo-back-album = Volver a { $album }
photo-taken = Tomada el { $date }
photo-uploaded = Subida el { $date }
photo-in-albums = En
photo-download = Descargar el original
photo-delete = Eliminar esta foto…
photo-original-note = Solo tú puedes descargar el original: es el archivo tal como lo subiste, con todo lo que tu cámara escribió en él (por ejemplo, dónde se tomó la foto). Todo lo que muestra Selfie, aquí y en los enlaces para compartir, es una copia sin esa información.
photo-delete-to-trash = Irá a la papelera: desaparece de tu galería, tus álbumes y tus enlaces, y se elimina definitivamente pasados { $days } días si no la restauras.
photo-delete-for-good = Desaparecerá definitivamente y su enlace de imagen dejará de funcionar.
photo-delete-yes = Sí, eliminarla
photo-delete-no = No, conservarla
photo-from = Foto del { $date }

# Páginas de aviso: revisa tu correo, confirma una dirección, un enlace que ya no funciona.
message-check-mail = Revisa tu correo
message-sign-up-sent = Hemos enviado un mensaje a { $email }. Abre su enlace para confirmar tu dirección y luego inicia sesión.
message-no-mail-yet = ¿No ha llegado nada en unos minutos? Mira en la carpeta de spam.
message-reset-sent = Si esa dirección pertenece a una cuenta de Selfie, va de camino un enlace para elegir una contraseña nueva. Sirve durante una hora.
message-reset-no-mail = ¿No ha llegado nada en unos minutos? Mira en la carpeta de spam o prueba con la dirección con la que te registraste.
message-back-to-sign-in = Volver a iniciar sesión
message-confirm-email = Confirma tu dirección de correo
message-confirm-email-intro = Confirma que { $email } es tu dirección, para que Selfie pueda escribirte (por ejemplo, para restablecer una contraseña olvidada).
message-confirm-email-button = Confirmar { $email }
message-confirm-new-email = Confirma tu nueva dirección
message-confirm-new-email-intro = Tu cuenta de Selfie usará { $email } a partir de ahora: para iniciar sesión y para los correos de Selfie.
message-confirm-new-email-button = Usar { $email }
message-confirm-link-password = Escribe tu contraseña de Selfie para confirmar. Si no te has registrado en Selfie, ignora esta página: sin la contraseña no cambia nada.
message-confirm-link-sign-in = Inicia sesión en tu cuenta de Selfie en este navegador para confirmar. Si no te has registrado en Selfie, ignora esta página: no cambia nada.
message-confirm-link-sign-in-button = Iniciar sesión para confirmar
message-link-dead = Este enlace ya no funciona
message-link-dead-intro = Este enlace ha caducado o ya se usó. No se ha cambiado nada; pide uno nuevo.
message-link-dead-reset = Los enlaces para restablecer funcionan una vez, durante una hora.
message-link-dead-other = Los enlaces funcionan una vez y solo durante un tiempo.
message-mail-new-link = Enviarme un enlace nuevo
message-go-to-account = Ir a tu cuenta

# La papelera, los álbumes, eliminar una selección.
trash-intro = Las fotos eliminadas se quedan aquí { $days } días, ocultas en tu galería, tus álbumes y tus enlaces, y después se eliminan definitivamente. «Restaurar» las devuelve a donde estaban.
trash-empty = La papelera está vacía.
trash-selection-intro = Selecciona fotos para restaurarlas o eliminarlas definitivamente.
trash-restore = Restaurar
trash-delete-for-good = Eliminar definitivamente
trash-restore-all = Restaurar todo lo de la papelera
trash-showing-latest = Se muestran las { $shown } fotos eliminadas más recientemente de { $total }. «Restaurar todo» y «Vaciar la papelera» las incluyen todas.
trash-deleted-on = Eliminada el { $date }
trash-gone-on = desaparece el { $date }
trash-empty-it = Vaciar la papelera…
trash-empty-warning = Todas las fotos de aquí se eliminan definitivamente, ahora. No se puede deshacer.
trash-empty-confirm = Eliminarlas todas definitivamente
albums-none = Aún no tienes álbumes. Crea uno aquí, o selecciona fotos en tu galería y elige «Añadir al álbum».
albums-go-to-gallery = Ir a tu galería
albums-new = Álbum nuevo
albums-make = Crear el álbum
album-description = Descripción
album-all = Todos los álbumes
album-empty = Este álbum está vacío. Selecciona fotos en tu galería y elige «Añadir al álbum».
album-links = Enlaces a este álbum
album-edit = Renombrar o describir este álbum
album-delete = Eliminar este álbum…
album-delete-heading = ¿Eliminar «{ $album }»?
album-delete-intro = El álbum y sus enlaces desaparecen. Sus { $photos } se quedan en tu galería.
album-delete-yes = Sí, eliminar el álbum
photos-delete-to-trash = Van a la papelera: desaparecen de tu galería, de todos los álbumes y de todos los enlaces, y se eliminan definitivamente pasados { $days } días si no las restauras.
photos-delete-for-good = Desaparecerán definitivamente, de tu galería, de todos los álbumes y de todos los enlaces, y sus enlaces de imagen dejarán de funcionar.
photos-delete-yes = { $count ->
    [one] Sí, eliminar esta foto
   *[other] Sí, eliminar { $count } fotos
}
photos-delete-no = No, conservarlas

# Enlaces para compartir: la lista, un enlace nuevo, el formulario.
links-intro = Cada enlace muestra un álbum o una foto (copias sin metadatos, nunca los originales) a quien lo tenga, hasta que caduque o lo desactives. Para crear uno, abre un álbum o una foto y elige «Compartir».
links-none = Aún no hay enlaces.
links-shows = Muestra
links-until = Funciona hasta
links-download = Descarga
links-views = Visitas
links-last-view = Última visita
links-turn-off = Desactivar
links-kind-album = álbum
links-kind-photo = foto
links-yes = Sí
links-no = No
links-allowed = Permitida
links-a-photo = Una foto
links-expired-on = Caducó el { $date }
links-in-trash = En la papelera: no muestra nada hasta que restaures la foto
links-never = Nunca
links-not-yet = Aún no
link-ready = Tu enlace está listo
link-shows = Muestra { $what } hasta el { $until }.
link-shows-with-password = Muestra { $what } hasta el { $until } a quien conozca también su contraseña.
link-label = Enlace
link-copy = Copiar
link-copy-now = Cópialo ahora: Selfie solo guarda una huella, así que no puede volver a mostrarte este enlace. Puedes desactivarlo en la página de tus enlaces.
link-back-to = Volver a { $what }
share-album = Compartir este álbum
share-photo = Compartir esta foto
share-works-for = El enlace funciona durante
share-days = { $count ->
    [one] 1 día
   *[other] { $count } días
}
share-never = Sin límite (hasta que lo desactives)
share-password-hint = Al menos { $minimum } caracteres. Quien abra el enlace tendrá que escribirla.
share-allow-download = Permitir descargar las fotos (copias sin metadatos)
share-copies-only = El enlace solo muestra copias de las fotos: nunca los archivos originales, sus nombres, dónde se tomaron ni tu dirección de correo.
share-make = Crear un enlace

# Lo que abre un enlace para compartir, para quien lo tenga.
shared-album = Álbum compartido
shared-photo = Foto compartida
shared-preview-title = Fotos que han compartido contigo en Selfie
shared-wrong-password = Esa no es la contraseña. Pregunta a quien compartió el enlace.
shared-back-to-album = Volver al álbum
shared-download-all = Descargar todo
shared-note = Compartido contigo en Selfie.
shared-more = Más fotos →
shared-password-intro = Quien lo compartió contigo la conoce.
