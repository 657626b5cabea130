# La página de la cuenta.

field-current-password = Contraseña actual
account-profile = Perfil
account-name = Nombre
account-confirmed = Confirmado
account-not-confirmed = Aún sin confirmar
account-member-since = Miembro desde
account-no-email = ninguno
account-unknown-address = desconocida
account-never = nunca
account-provider-account = cuenta { $id }
account-storage = Almacenamiento
storage-used-of = { $used } de { $quota } en uso ({ $percent } %)
storage-used-no-limit = { $used } en uso, sin límite
storage-in-trash = { $count } en la papelera ({ $size })
photo-count = { $count ->
    [one] 1 foto
   *[other] { $count } fotos
}
account-storage-trash-counts = La papelera cuenta hasta que se vacía.
account-storage-counts = Cuentan los originales y sus copias de visualización.
account-storage-nearly-full = Tu almacenamiento está casi lleno. Elimina las fotos que ya no necesites y vacía la papelera para hacer sitio.
account-change-password = Cambiar la contraseña
account-set-a-password = Crea una contraseña
account-set-password = Crear contraseña
account-no-password = Inicias sesión con un proveedor vinculado. Crea una contraseña para iniciar sesión también con tu correo o nombre de usuario.
account-username-hint = Tu cuenta no tiene correo: iniciarás sesión con este nombre de usuario. De 5 a 30 letras, cifras o guiones bajos.
account-new-password-hint = Al menos 8 caracteres. Se cerrarán tus otras sesiones.
account-change-email = Cambiar la dirección de correo
account-add-email = Añadir una dirección de correo
account-new-email = Dirección de correo nueva
account-new-email-hint = Enviaremos un enlace a la nueva dirección. Tu cuenta conserva la dirección actual hasta que lo abras.
account-mail-confirmation = Enviarme un enlace de confirmación
account-linked-methods = Métodos de inicio de sesión vinculados
account-linked-on = { $account } · vinculado el { $date }
account-unlink = Desvincular
account-unlink-provider = Desvincular { $provider }
account-no-provider = No hay ningún proveedor vinculado a tu cuenta.
account-set-password-first = Crea una contraseña antes de desvincular tu único método de inicio de sesión.
account-link-provider = Vincular { $provider }
account-two-factor = Verificación en dos pasos
account-two-factor-intro = Al iniciar sesión también se pide un código de una app de tu móvil, así que una contraseña robada no basta.
account-two-factor-set-up = Configurar una app de autenticación
account-on = Activada
account-two-factor-on = Al iniciar sesión se pide un código de tu app de autenticación.
account-recovery-codes-left = { $count ->
    [one] Te queda 1 código de recuperación sin usar.
   *[other] Te quedan { $count } códigos de recuperación sin usar.
}
account-code-from-app = Código de tu app
account-new-recovery-codes = Crear códigos de recuperación nuevos
account-remembered-browsers = { $count ->
    [one] 1 navegador se salta el código por ahora.
   *[other] { $count } navegadores se saltan el código por ahora.
}
account-forget-browsers = Olvidar los navegadores recordados
account-code-or-recovery = Código de tu app o un código de recuperación
account-two-factor-off = Desactivar la verificación en dos pasos
account-passkeys = Llaves de acceso
account-passkeys-intro = Una llave de acceso inicia tu sesión con la huella, la cara o el bloqueo de pantalla de tu dispositivo, en lugar de contraseña y código.
account-synced = Sincronizada
account-passkey-dates = añadida el { $added } · último uso { $used }
account-passkey-new-name = Nombre nuevo para { $name }
account-rename = Renombrar
account-remove = Eliminar
account-remove-passkey = Eliminar la llave de acceso { $name }
account-no-passkey = Aún no tienes ninguna llave de acceso.
account-add-passkey = Añadir una llave de acceso
account-passkey-needs-js = Para añadir una llave de acceso hace falta JavaScript.
account-sessions = Dónde has iniciado sesión
account-this-browser = Este navegador
account-session-facts = IP { $address } · sesión iniciada el { $signedIn } · última actividad { $active }
account-end-others = Cerrar sesión en todos los demás sitios
account-no-other-sessions = No has iniciado sesión en ningún otro sitio.
account-language-and-time = Idioma y hora
account-save-choices = Guardar
account-time-zone = Las horas se muestran en la zona horaria { $zone }, que indicó tu navegador (allí son ahora las { $now }).
account-time-zone-unknown = Las horas se muestran en UTC hasta que tu navegador nos diga su zona horaria (lo hará en la próxima página que abras).
account-your-data = Tus datos
account-your-data-intro = Un archivo ZIP con cada foto que subiste, tal como la subiste, y los datos de tu cuenta (account.json).
account-download-data = Descargar mis datos
account-delete = Eliminar tu cuenta
account-delete-intro = Tus fotos, tus sesiones y tu cuenta se eliminarán definitivamente. No se puede deshacer.
account-delete-password = Tu contraseña, para confirmar
account-delete-recent = Acabas de iniciar sesión, lo que confirma que eres tú.
account-delete-sign-in-again = Para confirmar que eres tú, cierra sesión y vuelve a iniciarla: eliminar una cuenta sin contraseña requiere haber iniciado sesión en los últimos { $minutes } minutos.
account-delete-submit = Eliminar mi cuenta

# Verificación en dos pasos: confirma que eres tú, el paso del código, la configuración, los códigos de recuperación.
confirm-intro = Este cambio necesita una prueba de que eres tú de verdad: hace un rato que iniciaste sesión en este navegador.
confirm-your-password = Tu contraseña
confirm-code = Código de tu app de autenticación o un código de recuperación
confirm-submit = Confirmar
confirm-no-password = Tu cuenta no tiene contraseña: vuelve a iniciar sesión abajo para continuar.
confirm-passkey = Confirmar con una llave de acceso
confirm-cancel = Cancelar
recovery-first-set = La verificación en dos pasos está activada. A partir de ahora, al iniciar sesión se pedirá un código de tu app.
recovery-replaced = Estos sustituyen a tus códigos de recuperación anteriores, que ya no funcionan.
recovery-intro = Si pierdes el móvil, cada uno de estos códigos inicia tu sesión una vez en lugar de un código de la app.
recovery-save-now = Guárdalos ahora (imprímelos o guárdalos en un gestor de contraseñas): solo se muestran esta vez.
recovery-label = Códigos de recuperación
recovery-saved = Ya los he guardado
code-intro = Abre tu app de autenticación y escribe el código de 6 cifras que muestra para Selfie. ¿No tienes el móvil a mano? Escribe uno de tus códigos de recuperación.
code-label = Código
code-remember = No volver a preguntar en este navegador durante { $days } días
code-submit = Verificar
code-start-again = Empezar de nuevo
setup-step-app = Abre una app de autenticación en tu móvil (Google Authenticator, Microsoft Authenticator, 1Password, Aegis…) y añade una cuenta.
setup-step-scan = Escanea con ella este código QR:
setup-open-app = ¿En este móvil? Añádela a tu app de autenticación
setup-cant-scan = ¿No puedes escanearlo? Escribe esta clave
setup-key-facts = Basado en el tiempo, 6 cifras, cada 30 segundos.
setup-step-code = Escribe el código de 6 cifras que muestra la app:
setup-code = Código de la app
setup-submit = Activar la verificación en dos pasos
setup-not-now = Ahora no
setup-qr-title = Código QR para escanear con tu app de autenticación

# A browser named from its User-Agent, on the account and admin pages (product names stay).
device-browser-on-system = { $browser } en { $system }
device-system-only = Navegador en { $system }
device-unknown = Navegador desconocido
