# Las páginas de administración. Reutilizadas: los títulos (title-admin-…), account-profile,
# account-storage, account-name, account-never, account-session-facts, account-linked-methods,
# sign-in-identifier, field-password, upload-photos, photo-count, title-photo.

admin-dashboard = Resumen

# El resumen: un número y lo que cuenta (el número aparece junto a las palabras).
admin-mail-not-sent = No se está enviando correo.
admin-mail-not-sent-detail = MAIL_TRANSPORT=log solo escribe destinatarios y asuntos en el registro, así que nadie recibe enlaces de confirmación ni de restablecimiento. Configura MAIL_TRANSPORT=smtp y SMTP_URL.
admin-stat-users = { $count ->
    [one] usuario
   *[other] usuarios
}
admin-stat-sessions = { $count ->
    [one] sesión activa en un navegador
   *[other] sesiones activas en navegadores
}
admin-stat-photos = { $count ->
    [one] foto
   *[other] fotos
}
admin-stat-stored = almacenados
admin-stat-sign-ins = { $count ->
    [one] inicio de sesión en las últimas 24 horas
   *[other] inicios de sesión en las últimas 24 horas
}
admin-stat-failed-sign-ins = { $count ->
    [one] inicio de sesión fallido en las últimas 24 horas
   *[other] inicios de sesión fallidos en las últimas 24 horas
}
admin-most-storage = Más almacenamiento
admin-no-users-yet = Aún no hay usuarios.
admin-every-user-by-storage = Todos los usuarios por almacenamiento

# Usuarios.
admin-user = Usuario
admin-search-label = Buscar por correo, nombre de usuario o nombre
admin-search = Buscar
admin-sorted = Orden:
admin-sort-newest = los más recientes primero
admin-sort-oldest = los más antiguos primero
admin-sort-storage = más almacenamiento primero
admin-no-users-match = Ningún usuario coincide.
admin-signed-up = Registro
admin-last-sign-in = Último inicio de sesión
admin-status = Estado
admin-status-active = activa
admin-status-disabled = desactivada
admin-role = Rol
admin-role-admin = administrador
admin-role-user = usuario
admin-previous = ← Anterior
admin-next = Siguiente →

# Un usuario.
admin-user-audit = Eventos del registro sobre este usuario
admin-storage-counts = Cuentan los originales, las copias de visualización y la papelera.
admin-quota = Cuota
admin-quota-default = La predeterminada ({ $size })
admin-quota-none = Sin límite
admin-quota-exactly = Exactamente
admin-quota-in-mb = Cuota en MB
admin-quota-unit = MB
admin-quota-hint = Se rechazan las subidas que superarían la cuota; lo que ya está almacenado se queda.
admin-quota-save = Guardar la cuota
admin-no-limit = sin límite
admin-actions = Acciones
admin-no-photos = No hay fotos.
admin-newest-photos = Se muestran las 24 más recientes.
admin-albums-and-links = Álbumes y enlaces compartidos
admin-no-albums = No hay álbumes.
admin-live-links = Enlaces que se abren ahora
admin-no-live-links = No hay enlaces compartidos activos.
admin-signed-in-on = Sesiones iniciadas en
admin-no-sessions = No hay sesiones activas ni tokens de API.
admin-no-provider = No hay ningún proveedor vinculado.
admin-token = Token de API (clave de app { $key })
admin-token-facts = emitido el { $issued } · último uso { $used } · caduca el { $expires }
admin-identity-facts = { $account } · vinculado el { $linked } · último uso { $used }
admin-link-album = Álbum «{ $title }»
admin-link-photo = Foto «{ $title }»
admin-link-untitled = sin título
admin-link-made = creado el { $date }
admin-link-until = hasta el { $date }
admin-link-never-expires = no caduca
admin-link-password = contraseña
admin-link-views = { $count ->
    [one] 1 visita
   *[other] { $count } visitas
}

# Lo que un administrador puede hacer con una cuenta: el enlace, la pregunta, lo que sigue, el botón.
admin-action-disable = Desactivar la cuenta
admin-action-enable = Activar la cuenta
admin-action-revoke-access = Cerrar todas las sesiones (navegadores y tokens de API)
admin-action-delete = Eliminar la cuenta y las fotos
admin-action-promote = Hacer administrador
admin-action-demote = Quitar el rol de administrador
admin-action-send-reset-link = Enviar un enlace para restablecer la contraseña
admin-action-reset-second-factor = Restablecer la verificación en dos pasos y las llaves de acceso
admin-action-revoke-links = Desactivar todos los enlaces compartidos
admin-confirm-question = ¿{ $action }? { $user }
admin-do-disable = Sí, desactivar la cuenta
admin-do-enable = Sí, activar la cuenta
admin-do-revoke-access = Sí, cerrar todas las sesiones (navegadores y tokens de API)
admin-do-delete = Sí, eliminar la cuenta y las fotos
admin-do-promote = Sí, hacer administrador
admin-do-demote = Sí, quitar el rol de administrador
admin-do-send-reset-link = Sí, enviar un enlace para restablecer la contraseña
admin-do-reset-second-factor = Sí, restablecer la verificación en dos pasos y las llaves de acceso
admin-do-revoke-links = Sí, desactivar todos los enlaces compartidos
admin-then-disable = Se cerrarán todas sus sesiones al instante y no podrá iniciar sesión hasta que se vuelva a activar.
admin-then-enable = Podrá volver a iniciar sesión.
admin-then-revoke-access = Todas sus sesiones de navegador y tokens de API terminan ahora; puede volver a iniciar sesión.
admin-then-delete = { $count ->
    [one] Su cuenta, 1 foto y todas sus sesiones desaparecen para siempre. No se puede deshacer.
   *[other] Su cuenta, { $count } fotos y todas sus sesiones desaparecen para siempre. No se puede deshacer.
}
admin-then-promote = Podrá usar estas páginas de administración.
admin-then-demote = Ya no podrá usar estas páginas de administración.
admin-then-reset-second-factor = Se eliminan su app de autenticación, sus códigos de recuperación, los navegadores recordados y sus llaves de acceso: solo su contraseña le da acceso hasta que lo vuelva a configurar (sin contraseña, elige una con un enlace de restablecimiento a su dirección). Hazlo solo cuando estés seguro de que es esa persona (perdió su móvil).
admin-then-revoke-links = Todos los álbumes y fotos que compartió dejan de abrirse al instante para quien tenga el enlace. Sus fotos y álbumes se quedan; puede volver a compartir.
admin-then-send-reset-link = Se envía a { $address } un enlace para elegir una contraseña nueva; funciona una vez, durante una hora. Su contraseña actual sigue funcionando hasta que lo use.
admin-their-address = su dirección
admin-go-back = No, volver

# Claves de API.
admin-key-created = Clave «{ $name }» creada
admin-key-give = Da a la app este nombre y esta contraseña.
admin-key-shown-once = La contraseña solo se muestra ahora: Selfie solo guarda su hash.
admin-key-source = Origen
admin-key-created-at = Creada
admin-last-used = Último uso
admin-key-from-environment = entorno (API_AUTH_NAME)
admin-key-added-here = añadida aquí
admin-key-revoked = revocada el { $date }
admin-revoke = Revocar
admin-add-key = Añadir una clave
admin-key-name-hint = De 3 a 64 letras, cifras, puntos, guiones o guiones bajos, p. ej. android-app.
admin-create-key = Crear la clave
admin-revoke-question = ¿Revocar la clave de app { $name }?
admin-then-revoke-key = Las apps que la usan ya no pueden registrarse, iniciar sesión ni obtener tokens. Los tokens ya emitidos con ella siguen sirviendo para las fotos hasta que caduquen, pero ya no pueden cambiar una contraseña.
admin-do-revoke-key = Sí, revocar { $name }

# El registro de actividad.
admin-user-id = ID de usuario
admin-event = Evento
admin-all-events = Todos los eventos
admin-filter = Filtrar
admin-no-events = No hay eventos.
admin-when = Cuándo
admin-by = Quién
admin-about = Sobre
admin-from = Desde
admin-older-events = Eventos anteriores →
admin-user-number = usuario n.º { $id }

# Correo.
admin-mail-pending = { $count ->
    [one] mensaje esperando a ser entregado (se reintenta cada vez más espaciado durante unas 9 horas antes de darlo por perdido).
   *[other] mensajes esperando a ser entregados (se reintentan cada vez más espaciados durante unas 9 horas antes de darlos por perdidos).
}
admin-mail-failed = No se pudieron entregar
admin-mail-all-delivered = Se entregaron todos los mensajes.
admin-mail-to = Para
admin-mail-message = Mensaje
admin-mail-queued = En cola desde
admin-mail-given-up = Abandonado
admin-mail-attempts = Intentos
admin-mail-last-error = Último error
admin-mail-ask-again = Las personas a quienes iban pueden volver a pedirlos (un enlace nuevo) cuando el correo funcione; el registro del servidor tiene cada intento.

# Integridad.
admin-integrity-intro = El original y las variantes de cada foto comparados con el almacén de blobs: archivos que faltan, archivos que ninguna foto usa y archivos cuyos bytes cambiaron desde que se guardaron. «selfie check» lee todos los archivos; «selfie check --repair» rehace las variantes y aparta los archivos sin usar.
admin-integrity-never = Aún no se ha hecho ninguna comprobación. La comprobación ligera se hace cada 6 horas; ejecuta «selfie check» para una completa.
admin-check-full = Comprobación completa (selfie check)
admin-check-light = Comprobación ligera (cada 6 horas)
admin-check-finished = Terminó el { $finished } en { $duration }: { $summary }.
admin-check-seconds = { $seconds } s
admin-check-blobs = { $count ->
    [one] 1 blob en el almacén
   *[other] { $count } blobs en el almacén
}
admin-check-checksums = { $count ->
    [one] 1 suma de comprobación verificada
   *[other] { $count } sumas de comprobación verificadas
}
admin-integrity-clean = Todo estaba en orden.
admin-integrity-more = … y { $count } más: ejecuta «selfie check».
admin-finding-photo = foto { $photo } de { $owner } (blob { $blob })
admin-finding-missing-original = falta el original: { $photo }; restáuralo desde una copia de seguridad
admin-finding-missing-rendition = falta la variante { $rendition }: { $photo }
admin-finding-corrupt-original = original dañado: { $photo }: sus bytes ya no coinciden con el SHA-256 registrado al guardarlo
admin-finding-corrupt-rendition = variante { $rendition } dañada: { $photo }: sus bytes ya no coinciden con el SHA-256 registrado al guardarla
admin-finding-orphan = blob { $blob } sin referencia: ninguna fila de foto apunta a él
admin-finding-moved-aside = { $finding } (apartado)
admin-finding-remade = { $finding } (variantes rehechas a partir del original)
