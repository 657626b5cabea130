# Correos: asuntos, las palabras de ambas partes y el pie del diseño (Templates/mail/).
# Un mensaje que acaba en -text es solo para la parte de texto; uno que acaba en -html, solo para
# la parte HTML: ahí <strong>…</strong> y <a href="{ $someLink }">…</a> son el único marcado
# permitido. Los demás mensajes sirven para ambas partes. Tras «Hola, …:» se sigue con mayúscula.

mail-greeting = Hola, { $name }:
mail-greeting-no-name = Hola:
mail-or-open-link = O abre este enlace: { $link }
mail-footer = Selfie ha enviado este mensaje a { $recipient }. Trata sobre tu cuenta; no puedes darte de baja de él.

# El navegador o la app de un nuevo inicio de sesión, según su User-Agent (los nombres de producto
# se quedan como están), tal como aparece en mail-new-sign-in-intro: «desde Chrome en Linux».
mail-device-browser-on-system = { $browser } en { $system }
mail-device-system-only = un navegador en { $system }
mail-device-unknown = un navegador desconocido

mail-verify-email-subject = Confirma tu dirección de correo para Selfie
mail-verify-email-ask-text = Confirma que esta es tu dirección de correo para Selfie abriendo este enlace:
mail-verify-email-ask = Confirma que esta es tu dirección de correo para Selfie.
mail-verify-email-button = Confirmar mi dirección
mail-verify-email-expiry = El enlace sirve durante 48 horas y una sola vez. Si no has creado una cuenta de Selfie, puedes ignorar este mensaje.

mail-password-reset-subject = Restablece tu contraseña de Selfie
mail-password-reset-intro = Alguien —esperamos que tú— ha pedido restablecer la contraseña de tu cuenta de Selfie.
mail-password-reset-intro-text = Alguien —esperamos que tú— ha pedido restablecer la contraseña de tu cuenta de Selfie. Elige una contraseña nueva aquí:
mail-password-reset-button = Elegir una contraseña nueva
mail-password-reset-expiry = El enlace sirve durante una hora y una sola vez. Al poner una contraseña nueva se cerrarán todas tus sesiones. Si no lo has pedido tú, ignora este mensaje: tu contraseña seguirá igual.

mail-confirm-new-email-subject = Confirma tu nueva dirección de correo para Selfie
mail-confirm-new-email-ask-text = Confirma que { $newEmail } debe pasar a ser la dirección de correo de tu cuenta de Selfie:
mail-confirm-new-email-ask-html = Confirma que <strong>{ $newEmail }</strong> debe pasar a ser la dirección de correo de tu cuenta de Selfie.
mail-confirm-new-email-button = Usar esta dirección
mail-confirm-new-email-expiry = El enlace sirve durante 24 horas y una sola vez. Hasta que lo abras, tu cuenta conserva su dirección actual. Si no lo has pedido tú, ignora este mensaje.

mail-email-change-requested-subject = Tu cuenta de Selfie va a cambiar de dirección
mail-email-change-requested-intro-text = Alguien con la sesión iniciada en tu cuenta de Selfie ha pedido cambiarla a la dirección { $newEmail }. Tu cuenta conserva esta dirección hasta que se confirme la nueva.
mail-email-change-requested-intro-html = Alguien con la sesión iniciada en tu cuenta de Selfie ha pedido cambiarla a la dirección <strong>{ $newEmail }</strong>. Tu cuenta conserva esta dirección hasta que se confirme la nueva.
mail-email-change-requested-not-you-text = Si no has sido tú, cambia tu contraseña ahora: { $forgotLink }
mail-email-change-requested-not-you-html = Si no has sido tú, <a href="{ $forgotLink }">cambia tu contraseña ahora</a>.

mail-email-changed-subject = La dirección de correo de tu cuenta de Selfie ha cambiado
mail-email-changed-intro-text = Tu cuenta de Selfie usa ahora la dirección { $newEmail }. Con esta dirección ({ $recipient }) ya no se puede iniciar sesión en ella.
mail-email-changed-intro-html = Tu cuenta de Selfie usa ahora la dirección <strong>{ $newEmail }</strong>. Con esta dirección ({ $recipient }) ya no se puede iniciar sesión en ella.
mail-email-changed-not-you-text = Si no has sido tú, otra persona puede iniciar sesión en tu cuenta, y restablecer la contraseña enviaría el enlace a su dirección: ponte en contacto cuanto antes con quienes administran este Selfie para que bloqueen la cuenta.
mail-email-changed-not-you-html = Si no has sido tú, otra persona puede iniciar sesión en tu cuenta, y restablecer la contraseña enviaría el enlace a su dirección: ponte en contacto cuanto antes con quienes administran este Selfie para que bloqueen la cuenta.

mail-password-changed-subject = Tu contraseña de Selfie ha cambiado
mail-password-changed-intro = La contraseña de tu cuenta de Selfie acaba de cambiar y se han cerrado tus otras sesiones.
mail-password-changed-not-you-text = Si no has sido tú, restablece tu contraseña ahora: { $forgotLink }
mail-password-changed-not-you-html = Si no has sido tú, <a href="{ $forgotLink }">restablece tu contraseña ahora</a>.

mail-provider-linked-subject = Ya se puede iniciar sesión en tu cuenta de Selfie con { $provider }
mail-provider-linked-intro-text = Ya se puede usar { $provider } para iniciar sesión en tu cuenta de Selfie.
mail-provider-linked-intro-html = Ya se puede usar <strong>{ $provider }</strong> para iniciar sesión en tu cuenta de Selfie.
mail-provider-linked-not-you-text = Si no has sido tú, inicia sesión, desvincúlalo en la página de tu cuenta ({ $accountLink }) y cambia tu contraseña.
mail-provider-linked-not-you-html = Si no has sido tú, inicia sesión, desvincúlalo en <a href="{ $accountLink }">la página de tu cuenta</a> y cambia tu contraseña.

mail-account-deleted-subject = Tu cuenta de Selfie se ha eliminado
mail-account-deleted-intro = Tu cuenta de Selfie y todas sus fotos se han eliminado, como pediste. Adiós, y gracias por usar Selfie.
mail-account-deleted-not-you = Si no lo has pedido tú, ponte en contacto con quienes administran este Selfie.

mail-sign-up-attempted-subject = Alguien ha intentado registrarse en Selfie con tu dirección
mail-sign-up-attempted-intro = Alguien acaba de intentar crear una cuenta nueva de Selfie con esta dirección. Ya tienes una.
mail-sign-up-attempted-you-text = Si has sido tú: inicia sesión en { $signInLink } o elige una contraseña nueva en { $forgotLink } si la has olvidado.
mail-sign-up-attempted-you-html = Si has sido tú: <a href="{ $signInLink }">inicia sesión</a> o <a href="{ $forgotLink }">elige una contraseña nueva</a> si la has olvidado.
mail-sign-up-attempted-not-you = Si no has sido tú, puedes ignorar este mensaje: no se ha cambiado nada.

mail-new-sign-in-subject = Un nuevo inicio de sesión en tu cuenta de Selfie
mail-new-sign-in-intro-text = Alguien acaba de iniciar sesión en tu cuenta de Selfie desde { $device }, en una red que la cuenta no había usado antes ({ $network }).
mail-new-sign-in-intro-html = Alguien acaba de iniciar sesión en tu cuenta de Selfie desde <strong>{ $device }</strong>, en una red que la cuenta no había usado antes ({ $network }).
mail-new-sign-in-not-you-text = Si has sido tú, no tienes que hacer nada. Si no, abre la página de tu cuenta ({ $sessionsLink }), cierra las otras sesiones y cambia tu contraseña.
mail-new-sign-in-not-you-html = Si has sido tú, no tienes que hacer nada. Si no, abre <a href="{ $sessionsLink }">la página de tu cuenta</a>, cierra las otras sesiones y cambia tu contraseña.

# Cambios de seguridad: un asunto y una frase cada uno; { $name } es el nombre de la llave de
# acceso o del proveedor.
mail-security-change-not-you-text = Si no has sido tú, inicia sesión, revisa la página de tu cuenta ({ $accountLink }), cambia tu contraseña y cierra todas las sesiones.
mail-security-change-not-you-html = Si no has sido tú, inicia sesión, revisa <a href="{ $accountLink }">la página de tu cuenta</a>, cambia tu contraseña y cierra todas las sesiones.
mail-security-two-factor-enabled-subject = La verificación en dos pasos está activada en tu cuenta de Selfie
mail-security-two-factor-enabled = Se ha activado la verificación en dos pasos: ahora, al iniciar sesión, también se pide un código de tu app de autenticación.
mail-security-two-factor-disabled-subject = Se ha desactivado la verificación en dos pasos en tu cuenta de Selfie
mail-security-two-factor-disabled = Se ha desactivado la verificación en dos pasos: para iniciar sesión vuelve a bastar con tu contraseña.
mail-security-recovery-codes-regenerated-subject = Códigos de recuperación nuevos para tu cuenta de Selfie
mail-security-recovery-codes-regenerated = Se han creado códigos de recuperación nuevos para tu cuenta; los antiguos ya no sirven.
mail-security-passkey-added-subject = Se ha añadido una llave de acceso a tu cuenta de Selfie
mail-security-passkey-added = Se ha añadido una llave de acceso («{ $name }») a tu cuenta: con ella se puede iniciar sesión sin tu contraseña.
mail-security-passkey-removed-subject = Se ha eliminado una llave de acceso de tu cuenta de Selfie
mail-security-passkey-removed = Se ha eliminado de tu cuenta la llave de acceso «{ $name }».
mail-security-provider-unlinked-subject = Se ha desvinculado un método de inicio de sesión de tu cuenta de Selfie
mail-security-provider-unlinked = Se ha desvinculado { $name } de tu cuenta y ya no sirve para iniciar sesión en ella.
mail-security-two-factor-reset-subject = La administración ha restablecido la verificación en dos pasos de tu cuenta de Selfie
mail-security-two-factor-reset = Alguien de la administración ha quitado tu app de autenticación y tus llaves de acceso: puedes iniciar sesión solo con tu contraseña y volver a configurarlas. ¿Aún no tienes contraseña? Elige una con «¿Has olvidado tu contraseña?» en la página de inicio de sesión: el enlace llega a esta dirección.
mail-security-unknown-subject = Ha cambiado la configuración de seguridad de tu cuenta de Selfie
mail-security-unknown = Ha cambiado un ajuste de seguridad de tu cuenta.
