# Títulos de página: el <title> y, en casi todas, el encabezado.

title-account = Tu cuenta
title-admin = Administración
title-admin-api-keys = Claves de API
title-admin-audit = Registro de actividad
title-admin-confirm = Confirmar
title-admin-integrity = Integridad
title-admin-mail = Correo
title-admin-users = Usuarios
title-albums = Tus álbumes
title-confirm-its-you = Confirma que eres tú
title-delete-album = ¿Eliminar este álbum?
title-delete-photo = ¿Eliminar esta foto?
title-forgot-password = ¿Has olvidado tu contraseña?
title-gallery = Tu galería
title-link-created = Tu enlace para compartir
title-links = Tus enlaces para compartir
title-recovery-codes = Tus códigos de recuperación
title-reset-password = Elige una contraseña nueva
title-shared-password = Este enlace tiene contraseña
title-sign-in = Iniciar sesión
title-sign-in-code = Escribe tu código
title-sign-up = Crea tu cuenta
title-trash = Papelera
title-two-factor-setup = Configurar la verificación en dos pasos
title-upload = Subir un selfie
title-photo = Foto
title-delete-photos = { $count ->
    [one] ¿Eliminar esta foto?
   *[other] ¿Eliminar estas { $count } fotos?
}
