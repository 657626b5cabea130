# Lo que dice un rechazo (Sources/App/Shared/ErrorCopy.swift), en las páginas en el idioma de quien las ve.

error-body-cut-short = La solicitud terminó antes de que llegara todo su contenido.
error-storage-unavailable = El almacenamiento de fotos no está disponible ahora mismo. Vuelve a intentarlo en breve.
error-storage-full = El almacenamiento de fotos está lleno ahora mismo. Vuelve a intentarlo más tarde.
error-status-400 = No se ha podido entender la solicitud.
error-status-401 = Inicia sesión primero.
error-status-403 = No tienes acceso a esto.
error-status-404 = No hay nada en esta dirección.
error-status-405 = Esta dirección no acepta ese tipo de solicitud.
error-status-408 = La solicitud tardó demasiado en llegar. Vuelve a intentarlo.
error-status-413 = Es demasiado grande.
error-status-415 = No se acepta ese tipo de archivo.
error-status-429 = Demasiados intentos. Espera un poco y vuelve a intentarlo.
error-status-503 = Selfie no está disponible por un momento. Vuelve a intentarlo en breve.
error-status-500 = Algo ha salido mal por nuestra parte. Vuelve a intentarlo.
error-query-number = El parámetro { $name } debe ser un número entero de { $minimum } a { $maximum }.
error-query-position = El parámetro { $name } no es una posición de la galería. Vuelve a las fotos más recientes y pasa las páginas desde allí.
error-media-none = Esa imagen no existe.
error-media-link-invalid = Este enlace de imagen no es válido.
error-media-link-expired = Este enlace de imagen ha caducado. Vuelve a cargar la página para obtener uno nuevo.
error-media-gone = Esta foto ya no existe.

error-code-required = Escribe el código de 6 cifras de tu app de autenticación o uno de tus códigos de recuperación.
error-code-incorrect = Ese código no es correcto o ya se usó. Escribe el código actual de tu app de autenticación o un código de recuperación sin usar.
error-setup-code-incorrect = Ese código no es correcto. Escribe el código de 6 cifras que muestra tu app ahora (y comprueba que la hora del teléfono se ajusta automáticamente).
error-two-factor-off = La verificación en dos pasos no está activada en esta cuenta.
error-two-factor-on = La verificación en dos pasos ya está activada en esta cuenta.
error-sign-in-expired = Este inicio de sesión ha caducado. Vuelve a iniciar sesión.
error-passkey-refused = No se ha podido usar la llave de acceso. Vuelve a intentarlo.
error-passkey-not-found = No existe esa llave de acceso en tu cuenta.
error-passkey-name = Ponle a la llave de acceso un nombre de 1 a 100 caracteres.
error-passkey-last-way-in = Esta llave de acceso es tu única forma de iniciar sesión. Crea una contraseña o vincula un proveedor antes de eliminarla.

error-invalid-credentials = El correo o la contraseña no son correctos.
error-account-disabled = Esta cuenta se ha desactivado.
error-email-not-verified = Primero confirma tu dirección de correo: hemos enviado un enlace nuevo a { $email }. Ábrelo y luego inicia sesión.
error-email-not-verified-no-new-link = Primero confirma tu dirección de correo con un enlace que enviamos antes a { $email } (hoy no se pueden enviar más). Ábrelo y luego inicia sesión.
error-last-administrator = Eres la última persona con permisos de administración. Dáselos a otra persona antes de eliminar tu cuenta.
error-confirm-its-you = Por tu seguridad, confirma que eres tú: vuelve a iniciar sesión (ha pasado un rato) y luego inténtalo de nuevo.
error-export-in-progress = Ya se está descargando una copia de tus datos. Espera a que termine y vuelve a intentarlo.
error-confirm-address-first = Primero confirma tu dirección de correo: abre el enlace que te enviamos (tu página de cuenta puede enviarlo de nuevo).
error-sign-in-to-use-link = Inicia sesión en este navegador con la cuenta para la que es este enlace y vuelve a usar el enlace.

error-field-name-missing = Escribe tu nombre.
error-field-missing = Este campo es obligatorio.
error-field-current-password-missing = Escribe tu contraseña de Selfie para confirmar.
error-field-too-long = Usa como máximo { $maximum } caracteres.
error-field-name-characters = Usa solo letras, espacios y signos de puntuación.
error-field-control-characters = Usa solo letras, cifras, espacios y símbolos (sin caracteres de control).
error-field-not-an-email = Escribe una dirección de correo como nombre@example.com.
error-field-email-ascii = Usa una dirección escrita solo con las letras a–z, cifras y . _ - +; para un dominio internacional, su forma xn--.
error-field-length = Usa de { $minimum } a { $maximum } caracteres.
error-field-username-characters = Usa solo letras, cifras y guiones bajos (_).
error-field-password-short = Usa al menos { $minimum } caracteres.
error-field-password-long = Usa como máximo { $maximum } bytes (unas { $maximum } letras; menos con acentos o emojis).
error-field-passwords-differ = Las dos contraseñas no coinciden.
error-field-email-taken = Ya existe una cuenta con este correo. ¿Quieres iniciar sesión?
error-field-username-taken = Este nombre de usuario ya está en uso. Elige otro.
error-field-current-password = Esta no es tu contraseña actual.
error-field-incorrect = No es correcto.
error-field-email-unchanged = Esta ya es tu dirección de correo.
error-field-unchanged = Es el valor actual.
error-field-username-required = Elige un nombre de usuario: tu cuenta no tiene correo, así que iniciarás sesión con él.
error-field-named = { $field }: { $problem }

error-too-many-sign-ins = { $minutes ->
    [one] Demasiados inicios de sesión fallidos en esta cuenta. Vuelve a intentarlo dentro de un minuto.
   *[other] Demasiados inicios de sesión fallidos en esta cuenta. Vuelve a intentarlo dentro de { $minutes } minutos.
}
error-too-many-attempts = { $minutes ->
    [one] Demasiados intentos desde tu red. Vuelve a intentarlo dentro de un minuto.
   *[other] Demasiados intentos desde tu red. Vuelve a intentarlo dentro de { $minutes } minutos.
}
error-too-many-of-yours = { $minutes ->
    [one] Lo has pedido demasiadas veces. Vuelve a intentarlo dentro de un minuto.
   *[other] Lo has pedido demasiadas veces. Vuelve a intentarlo dentro de { $minutes } minutos.
}
error-too-many-link-passwords = { $minutes ->
    [one] Demasiadas contraseñas incorrectas para este enlace. Vuelve a intentarlo dentro de un minuto.
   *[other] Demasiadas contraseñas incorrectas para este enlace. Vuelve a intentarlo dentro de { $minutes } minutos.
}

error-photo-not-multipart = Envía la foto como multipart/form-data con una parte `image`.
error-photo-malformed = No se ha podido leer la subida. Vuelve a intentarlo.
error-photo-missing = Elige una foto para subir.
error-photo-several = Envía una foto por subida.
error-photo-several-titles = Envía un pie de foto por subida.
error-photo-not-an-image = Solo se pueden subir fotos JPEG, PNG, GIF, WebP y HEIC.
error-photo-too-large = Esta foto es demasiado grande: el límite es { $limit }.
error-photo-over-quota = Esta foto no cabe en tu almacenamiento: quedan { $available } de { $quota }. Elimina las fotos que ya no necesites y vacía la papelera para hacer sitio.
error-caption-too-long = Usa como máximo { $maximum } caracteres para el pie de foto.
error-caption-characters = El pie de foto contiene caracteres que no se pueden mostrar.
error-photo-not-found = No existe esa foto.
error-uploads-in-progress = Hay demasiadas subidas en curso. Espera a que termine una y vuelve a intentarlo.
error-upload-timed-out = La subida tardó demasiado en llegar. Vuelve a intentarlo con una conexión mejor.
error-body-timed-out = La solicitud tardó demasiado en llegar. Vuelve a intentarlo.
error-processing-unavailable = No se ha podido procesar la foto ahora mismo. Vuelve a intentarlo en un momento.

error-album-not-found = No existe ese álbum.
error-album-name-missing = Ponle un nombre al álbum.
error-album-name-too-long = Usa como máximo { $maximum } caracteres para el nombre del álbum.
error-album-description-too-long = Usa como máximo { $maximum } caracteres para la descripción.
error-album-characters = El nombre o la descripción contienen caracteres que no se pueden mostrar.
error-album-cover = La portada tiene que ser una de las fotos del álbum.
error-select-photos = Selecciona primero al menos una foto.
error-select-fewer = Selecciona como máximo { $maximum } fotos a la vez.
error-too-many-albums = Tienes { $maximum } álbumes, el máximo para una cuenta. Borra uno para crear otro.

error-link-not-found = Este enlace no existe, ha caducado o se ha desactivado. Pide uno nuevo a quien lo compartió.
error-own-link-not-found = No tienes ese enlace: quizá ya se desactivó.
error-link-expiry = Elige cuánto tiempo funciona el enlace: 1, 7 o 30 días, o sin límite.
error-link-target = Elige un álbum o una foto para compartir.
error-link-password-problem = La contraseña del enlace: { $problem }
error-link-password-required = Este enlace tiene contraseña. Abre el enlace y escríbela primero.
error-link-wrong-password = Esa no es la contraseña del enlace.
error-link-no-download = Quien compartió estas fotos no ha permitido descargarlas.

error-image-format = No se puede leer el formato de esta foto. Usa JPEG, PNG, GIF, WebP o HEIC.
error-image-unreadable = No se ha podido leer esta foto: el archivo está dañado.
error-image-truncated = Esta foto está incompleta: el archivo está cortado. Vuelve a subirla.
error-image-megapixels = Esta imagen tiene demasiados píxeles: como máximo { $maximum } megapíxeles.
error-image-pixels = Esta imagen tiene demasiados píxeles: como máximo { $maximum } píxeles.
error-image-aspect = Esta imagen es demasiado estrecha o demasiado alta para mostrarla (más de 20 a 1).

error-provider-not-configured = Iniciar sesión con «{ $provider }» no está disponible aquí.
error-provider-unavailable = No se ha podido contactar con { $provider } para comprobar tu inicio de sesión. Vuelve a intentarlo en un momento.
error-provider-refused = { $provider } ha rechazado el inicio de sesión: { $reason }.
error-social-registered = Esta cuenta de { $provider } ya está registrada. Inicia sesión.
error-social-not-registered = No hay ninguna cuenta de Selfie vinculada a esta cuenta de { $provider }. Regístrate primero.
error-social-email-in-use = Ya existe una cuenta con el correo { $email }. Inicia sesión en ella con tu contraseña y luego vincula { $provider } desde tu página de cuenta.
error-social-linked-elsewhere = Esta cuenta de { $provider } ya está vinculada a otra cuenta de Selfie.
error-social-not-linked = Este método de inicio de sesión no está vinculado a tu cuenta.
error-social-last-way-in = Es tu única forma de iniciar sesión. Crea primero una contraseña y luego desvincúlalo.
error-social-flow-expired = Este inicio de sesión ha caducado o ya se usó. Empieza de nuevo.

error-admin-last-admin = Es la última persona con permisos de administración. Dáselos primero a otra persona.
error-admin-unconfirmed-address = Esta cuenta no ha confirmado su dirección, así que no puede ser administradora: cualquiera puede registrarse con una dirección que no es suya. Primero debe abrir el enlace de confirmación.
error-admin-no-such-user = Esa persona no existe (o ya no).
error-admin-key-name = Usa para el nombre de 3 a 64 letras, cifras, puntos, guiones o guiones bajos.
error-admin-key-reserved = Ese nombre pertenece a la clave del entorno.
error-admin-key-taken = Ya existe una clave de app con este nombre.
error-admin-quota = Escribe la cuota como un número entero de MB, al menos 1.
error-admin-no-such-key = No hay ninguna clave de app activa con este nombre (la clave del entorno no se puede revocar aquí).

# Los rechazos propios de las páginas.
error-csrf = Este formulario ha caducado o no procede de Selfie. Vuelve atrás, recarga la página e inténtalo de nuevo.
error-sign-in-incorrect = El correo, el nombre de usuario o la contraseña no son correctos.
error-passkey-sign-in = Esta llave de acceso no ha podido iniciar tu sesión. Vuelve a intentarlo o inicia sesión con tu contraseña.
error-address-taken-meanwhile = Otra cuenta ha tomado esta dirección mientras tanto, así que la tuya conserva su dirección actual.
error-selection-album-name = Ponle un nombre al álbum nuevo o elige uno de tus álbumes.
error-selection-remove-needs-album = Para quitar fotos hace falta el álbum en el que están.
error-selection-cover-needs-album = Una portada necesita el álbum al que pertenece.
error-selection-one-cover = Selecciona una sola foto para ponerla de portada del álbum.
error-selection-action = Elige qué hacer con las fotos seleccionadas.
error-trash-action = Elige si quieres restaurar las fotos seleccionadas o eliminarlas definitivamente.
error-provider-flow-browser = Este inicio de sesión no empezó en este navegador o ha caducado. Empieza de nuevo.
error-provider-link-account = Inicia sesión en la cuenta que estabas vinculando y vuelve a intentarlo.
error-preferences = Elige un idioma o unos colores de las listas.
error-too-many-links-today = Hoy ya te hemos enviado varios enlaces. Usa uno de ellos o vuelve a intentarlo mañana.
error-admins-only = Esta página es para quienes administran.
error-admin-quota-choice = Elige la cuota predeterminada, sin límite o un número de MB.
error-admin-is-last-admin = { $user } es la última persona con permisos de administración. Dáselos primero a otra persona.
error-admin-reset-last-way-in = Las llaves de acceso son la única forma de iniciar sesión en { $user } y la cuenta no tiene correo para un enlace de restablecimiento: sin ellas la cuenta quedaría bloqueada para siempre. Se conservan; desactiva la cuenta si robaron una llave.
error-admin-no-user = Esa persona no existe.
